package dev.mailqueue.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.mailqueue.testsupport.QueueDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database profiles ({@code -P postgresql}, {@code -P mariadb}) run only the unit tests tagged
 * {@value #TAG}: the rest do not touch a database and ran in the default build. So every test class that uses
 * the test database ({@link QueueDatabase}) must carry the tag, or it would never run on PostgreSQL or MariaDB.
 */
class DatabaseTagTest {

    static final String TAG = "database";

    static final JavaClasses TESTS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
            .importPackages("dev.mailqueue");

    @Test
    void everyTestClassThatUsesTheDatabaseIsTaggedForTheDatabaseProfiles() {
        List<String> users = TESTS.stream()
                .filter(c -> c.getSimpleName().endsWith("Test") && !c.isNestedClass())
                .filter(DatabaseTagTest::usesTheDatabase).map(JavaClass::getName).sorted().toList();
        assertThat(users).as("test classes on the test database").hasSizeGreaterThan(10);
        List<String> untagged = users.stream().filter(name -> !tagged(TESTS.get(name))).toList();
        assertThat(untagged).as("classes that use QueueDatabase without @Tag(\"" + TAG + "\")").isEmpty();
    }

    private static boolean usesTheDatabase(JavaClass type) {
        return type.getDirectDependenciesFromSelf().stream().anyMatch(d -> d.getTargetClass().getPackageName()
                .equals("dev.mailqueue.testsupport") && List.of("QueueDatabase", "MailStates")
                .contains(d.getTargetClass().getSimpleName()));
    }

    private static boolean tagged(JavaClass type) {
        return type.tryGetAnnotationOfType(Tag.class).map(t -> t.value().equals(TAG)).orElse(false)
                || type.getAnnotations().stream().anyMatch(a -> a.getRawType().isEquivalentTo(
                org.junit.jupiter.api.Tags.class) && Arrays.stream(a.as(org.junit.jupiter.api.Tags.class).value())
                .anyMatch(t -> t.value().equals(TAG)));
    }
}
