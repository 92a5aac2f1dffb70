package dev.mailqueue.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The EJB module's packages form layers, and the mail's state changes only in its store.
 * <p>
 * A feature (the package under {@code dev.mailqueue}) may use the features below it in {@link #LAYERS} and
 * none above; the few intended exceptions are written in {@link #cyclesBetweenPackages()}. A failure names
 * the class, the member and the line that break the rule. The rule is checked on the class files and, for what
 * javac leaves out of them (constants), on the sources. Each rule is also run on code that breaks it
 * ({@link #FIXTURE}) and must fail there.
 */
class ArchitectureTest {

    /**
     * The features from the top down. A feature reaches down only: operators' and publishing boundaries on
     * top, then dispatch and the intake of mail and reports, then accounts, the store and its types, then the
     * public API and the utilities every layer uses.
     */
    static final List<String> LAYERS = List.of(
            "submission", "admin", "dispatch", "mail", "simulator", "bounce", "retention", "erasure", "security", "webhook", "unsubscribe", "dkim", "template", "graph", "login", "ses",
            "account", "metrics", "queue", "schema", "api", "mime", "address", "server", "budget", "settings", "log");

    /** The tables whose rows say where a mail is in its lifecycle; only the store writes them. */
    static final List<String> STATE_TABLES = List.of("MAIL_QUEUE", "MAIL_CLAIMER", "MAIL_ATTEMPT", "MAIL_RECIPIENT",
            "MAIL_MESSAGE", "MAIL_STATUS_COUNT");

    /** The webhook publisher's stores: tables EVENT_CURSOR, WEBHOOK_DELIVERY, WEBHOOK_ENDPOINT, WORK_LEASE. */
    static final List<String> WEBHOOK_STORES = List.of("dev.mailqueue.webhook.control.EventCursorStore",
            "dev.mailqueue.webhook.control.WebhookDeliveryStore", "dev.mailqueue.webhook.control.WebhookEndpointStore",
            "dev.mailqueue.webhook.control.WorkLeaseStore");

    static final String ROOT = "dev.mailqueue";

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    /** The main sources, as the build sees them from the module's directory. */
    static final Path SOURCES = Path.of("src/main/java");

    /** The rule-breaking code of {@code dev.mailqueue.architecture.fixture}, one sub-package a break. */
    static final String FIXTURE = "dev.mailqueue.architecture.fixture";

    static final JavaClasses FIXTURES = new ClassFileImporter().importPackages(FIXTURE);

    static final Path FIXTURE_SOURCES = Path.of("src/test/java");

    /** The features of each fixture, from the top down. */
    static final List<String> FIXTURE_LAYERS = List.of("upper", "lower");

    @Test
    void everyFeatureIsInALayer() {
        List<String> unplaced = MAIN.stream().map(type -> feature(ROOT, type.getPackageName()))
                .filter(f -> !f.isEmpty() && !LAYERS.contains(f)).distinct().toList();
        assertThat(unplaced).as("features missing from LAYERS").isEmpty();
    }

    @Test
    void aFeatureUsesOnlyTheFeaturesBelowIt() {
        assertThat(layerBreaks(MAIN, ROOT, LAYERS)).as("uses that run up a layer").isEmpty();
    }

    /**
     * The same rule on the sources: a dependency that javac leaves out of the class file, a constant in an
     * annotation such as a role name in {@code @RolesAllowed}, is still an import or a qualified name there.
     */
    @Test
    void aFeatureNamesOnlyTheFeaturesBelowItInItsSources() throws IOException {
        assertThat(sourceLayerBreaks(SOURCES, ROOT, LAYERS)).as("imports and names that run up a layer").isEmpty();
    }

    /**
     * No two packages use each other, directly or around a loop. The one intended exception: a Bean Validation
     * constraint of the API ({@code api.validation}) and the API type it checks refer to each other, as a
     * constraint and its validator must.
     */
    @Test
    void cyclesBetweenPackages() {
        noCycles(ROOT).check(MAIN);
    }

    @Test
    void onlyTheStoresWrite() {
        onlyStoresWrite(ROOT + ".queue.control", ROOT + ".schema.control").check(MAIN);
    }

    @Test
    void stateTablesAreWrittenOnlyByTheStore() throws IOException {
        assertThat(stateWrites(SOURCES.resolve("dev/mailqueue"), "queue/control/", "schema/control/"))
                .as("state writes outside queue/control").isEmpty();
    }

    // Each rule shown failing on code that breaks it.

    @Test
    void aCallBackUpIntoTheFeatureAboveIsALayerBreakAndACycle() {
        String root = FIXTURE + ".cycle";

        assertThat(layerBreaks(FIXTURES, root, FIXTURE_LAYERS)).singleElement().asString()
                .contains("fixture.cycle.lower.Lower.answer()").contains("fixture.cycle.upper.Upper.seed()");
        EvaluationResult cycles = noCycles(root).evaluate(FIXTURES);
        assertThat(cycles.hasViolation()).as("a cycle between upper and lower").isTrue();
        assertThat(String.join("\n", cycles.getFailureReport().getDetails())).contains("Cycle detected");
    }

    /**
     * The class-file rules do not see a dependency carried by a constant alone (this is how {@code mail.boundary}'s
     * role names used by lower features went unnoticed); the source rule does.
     */
    @Test
    void aConstantOfTheFeatureAboveInAnAnnotationIsASourceLayerBreakThatTheClassFilesHide() throws IOException {
        String root = FIXTURE + ".constant";

        assertThat(layerBreaks(FIXTURES, root, FIXTURE_LAYERS)).as("what the class files show").isEmpty();
        assertThat(sourceLayerBreaks(FIXTURE_SOURCES, root, FIXTURE_LAYERS)).containsExactlyInAnyOrder(
                "dev/mailqueue/architecture/fixture/constant/lower/Guarded.java (lower) names"
                        + " dev.mailqueue.architecture.fixture.constant.upper (upper)",
                // after a "//" inside a string literal, which is not a comment
                "dev/mailqueue/architecture/fixture/constant/lower/Linked.java (lower) names"
                        + " dev.mailqueue.architecture.fixture.constant.upper (upper)");
    }

    @Test
    void aJpaWriteOutsideTheStoreBreaksTheWriteRuleAndTheStoresOwnDoesNot() {
        EvaluationResult result = onlyStoresWrite(FIXTURE + ".write.store").evaluate(FIXTURES);

        List<String> details = result.getFailureReport().getDetails();
        assertThat(details).isNotEmpty().allSatisfy(d -> assertThat(d).contains("fixture.write.other.Shortcut"));
        assertThat(details).anySatisfy(d -> assertThat(d).contains("EntityManager.merge"))
                .anySatisfy(d -> assertThat(d).contains("Query.executeUpdate"));
    }

    @Test
    void stateSqlOutsideTheStoreIsFoundInAnyCaseAndAcrossLinesAndTheStoresOwnIsNot() throws IOException {
        Path fixture = FIXTURE_SOURCES.resolve("dev/mailqueue/architecture/fixture/write");

        assertThat(stateWrites(fixture, "store/")).containsExactly(
                "other/Shortcut.java: DELETE\n                  FROM MAIL_ATTEMPT",
                "other/Shortcut.java: UPDATE MAIL_RECIPIENT");
        assertThat(stateWrites(fixture)).as("the store's own, when not left out").hasSize(3);
    }

    /**
     * @param classes the classes to check
     * @param root    the package whose sub-packages are the features
     * @param layers  the features from the top down
     * @return each use of a class of a feature above the user's, as ArchUnit describes it (class, member, line)
     */
    static List<String> layerBreaks(JavaClasses classes, String root, List<String> layers) {
        List<String> broken = new ArrayList<>();
        for (int i = 1; i < layers.size(); i++) {
            String[] above = layers.subList(0, i).stream().map(f -> root + "." + f + "..").toArray(String[]::new);
            ArchRule rule = noClasses().that().resideInAPackage(root + "." + layers.get(i) + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(above).allowEmptyShould(true);
            EvaluationResult result = rule.evaluate(classes);
            if (result.hasViolation()) {
                broken.addAll(result.getFailureReport().getDetails());
            }
        }
        return broken;
    }

    /**
     * The layer rule read from the sources: each {@code import} and each qualified name {@code root.feature.} in a
     * file's code (comments left out) must be of its own feature or one below it.
     *
     * @param sources the source root (the directory that holds {@code dev/})
     * @param root    the package whose sub-packages are the features
     * @param layers  the features from the top down
     * @return "file (feature) names package (feature)" for each feature above the file's, once per file and package
     * @throws IOException when a source cannot be read
     */
    static List<String> sourceLayerBreaks(Path sources, String root, List<String> layers) throws IOException {
        Path base = sources.resolve(root.replace('.', '/'));
        Pattern named = Pattern.compile("\\b" + Pattern.quote(root) + "\\.(\\w+)((?:\\.[a-z]\\w*)*)");
        // literals first, so that "//" or "/*" inside one does not start a comment; comments become a space
        Pattern literalsOrComments = Pattern.compile(
                "\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])*'|/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
        List<String> found = new ArrayList<>();
        for (Path file : javaFiles(base)) {
            String code = literalsOrComments.matcher(Files.readString(file))
                    .replaceAll(r -> r.group().startsWith("/") ? " " : Matcher.quoteReplacement(r.group()));
            String own = feature(root, packageOf(code));
            int ownLevel = layers.indexOf(own);
            Matcher m = named.matcher(code);
            java.util.Set<String> seen = new java.util.LinkedHashSet<>();
            while (m.find()) {
                int level = layers.indexOf(m.group(1));
                if (ownLevel >= 0 && level >= 0 && level < ownLevel) {
                    String pkg = root + "." + m.group(1) + m.group(2);
                    if (seen.add(pkg)) {
                        found.add(sources.relativize(file).toString().replace('\\', '/') + " (" + own + ") names "
                                + pkg + " (" + m.group(1) + ")");
                    }
                }
            }
        }
        return found;
    }

    /** @return the rule that no two packages under the root use each other, with the one intended exception */
    static ArchRule noCycles(String root) {
        return slices().matching(root + ".(**)").should().beFreeOfCycles()
                .ignoreDependency(resideInAPackage("dev.mailqueue.api.validation"), resideInAPackage("dev.mailqueue.api"));
    }

    /**
     * JDBC and JPA writes happen in the stores ({@code queue.control}), the schema migration, and two intended
     * exceptions that keep tables of their own, no mail state: {@code AccountThrottle} its per-account rate counters
     * (table SMTP_ACCOUNT_RATE) in the claim's own transaction, and the webhook publisher's stores
     * ({@link #WEBHOOK_STORES}) its cursors, parked deliveries, endpoint health and work lease.
     *
     * @param stores the packages that may write
     * @return the rule
     */
    static ArchRule onlyStoresWrite(String... stores) {
        return noClasses().that().resideOutsideOfPackages(stores)
                .and().doNotHaveFullyQualifiedName("dev.mailqueue.account.control.AccountThrottle")
                .and(DescribedPredicate.describe("not a webhook publisher's store",
                        (JavaClass c) -> !WEBHOOK_STORES.contains(c.getFullName())))
                .should().callMethodWhere(DescribedPredicate.<JavaMethodCall>describe(
                        "a JDBC or JPA write", call -> isWrite(call.getTarget().getOwner(), call.getName())));
    }

    /**
     * No SQL text outside the store inserts into, updates or deletes from a table that holds a mail's state
     * (read from the sources, as SQL is text that the class files do not show as a dependency). SQL put together
     * from pieces ({@code "UPDATE " + table}) escapes it; the store builds none outside {@code queue/control}.
     *
     * @param sources the directory to read
     * @param skipped the sub-directories (relative, ending in {@code /}) allowed to write
     * @return "file: STATEMENT TABLE" for each write found, in file order
     * @throws IOException when a source cannot be read
     */
    static List<String> stateWrites(Path sources, String... skipped) throws IOException {
        Pattern write = Pattern.compile("(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(" + String.join("|", STATE_TABLES)
                + ")\\b", Pattern.CASE_INSENSITIVE);
        List<String> found = new ArrayList<>();
        for (Path file : javaFiles(sources)) {
            String relative = sources.relativize(file).toString().replace('\\', '/');
            if (Stream.of(skipped).anyMatch(relative::startsWith)) {
                continue;
            }
            Matcher m = write.matcher(Files.readString(file));
            while (m.find()) {
                found.add(relative + ": " + m.group().toUpperCase(Locale.ROOT));
            }
        }
        return found;
    }

    private static List<Path> javaFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static String packageOf(String code) {
        Matcher m = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;").matcher(code);
        return m.find() ? m.group(1) : "";
    }

    private static boolean isWrite(JavaClass owner, String method) {
        boolean jdbc = owner.isAssignableTo(java.sql.Statement.class)
                && (method.startsWith("execute") && !method.equals("executeQuery"));
        boolean jpa = (owner.isAssignableTo(jakarta.persistence.EntityManager.class)
                && List.of("persist", "merge", "remove").contains(method))
                || (owner.isAssignableTo(jakarta.persistence.Query.class) && method.equals("executeUpdate"));
        return jdbc || jpa;
    }

    private static String feature(String root, String name) {
        if (!name.startsWith(root + ".")) {
            return "";
        }
        String rest = name.substring(root.length() + 1);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }
}
