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
 * the class, the member and the line that break the rule.
 */
class ArchitectureTest {

    /**
     * The features from the top down. A feature reaches down only: operators' and publishing boundaries on
     * top, then dispatch and the intake of mail and reports, then accounts, the store and its types, then the
     * public API and the utilities every layer uses.
     */
    static final List<String> LAYERS = List.of(
            "submission", "admin", "dispatch", "mail", "simulator", "bounce", "retention", "security", "webhook", "unsubscribe", "dkim", "template", "graph", "login", "ses",
            "account", "metrics", "queue", "schema", "api", "mime", "address", "server", "budget", "settings", "log");

    /** The tables whose rows say where a mail is in its lifecycle; only the store writes them. */
    static final List<String> STATE_TABLES = List.of("MAIL_QUEUE", "MAIL_CLAIMER", "MAIL_ATTEMPT", "MAIL_RECIPIENT",
            "MAIL_MESSAGE");

    /** The webhook publisher's stores: tables EVENT_CURSOR, WEBHOOK_DELIVERY, WEBHOOK_ENDPOINT, WORK_LEASE. */
    static final List<String> WEBHOOK_STORES = List.of("dev.mailqueue.webhook.control.EventCursorStore",
            "dev.mailqueue.webhook.control.WebhookDeliveryStore", "dev.mailqueue.webhook.control.WebhookEndpointStore",
            "dev.mailqueue.webhook.control.WorkLeaseStore");

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.mailqueue");

    @Test
    void everyFeatureIsInALayer() {
        List<String> unplaced = MAIN.stream().map(ArchitectureTest::feature)
                .filter(f -> !f.isEmpty() && !LAYERS.contains(f)).distinct().toList();
        assertThat(unplaced).as("features missing from LAYERS").isEmpty();
    }

    @Test
    void aFeatureUsesOnlyTheFeaturesBelowIt() {
        List<String> broken = new ArrayList<>();
        for (int i = 1; i < LAYERS.size(); i++) {
            String[] above = LAYERS.subList(0, i).stream().map(f -> "dev.mailqueue." + f + "..").toArray(String[]::new);
            ArchRule rule = noClasses().that().resideInAPackage("dev.mailqueue." + LAYERS.get(i) + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(above);
            EvaluationResult result = rule.evaluate(MAIN);
            if (result.hasViolation()) {
                broken.addAll(result.getFailureReport().getDetails());
            }
        }
        assertThat(broken).as("imports that run up a layer").isEmpty();
    }

    /**
     * No two packages use each other, directly or around a loop. The one intended exception: a Bean Validation
     * constraint of the API ({@code api.validation}) and the API type it checks refer to each other, as a
     * constraint and its validator must.
     */
    @Test
    void cyclesBetweenPackages() {
        slices().matching("dev.mailqueue.(**)").should().beFreeOfCycles()
                .ignoreDependency(resideInAPackage("dev.mailqueue.api.validation"), resideInAPackage("dev.mailqueue.api"))
                .check(MAIN);
    }

    /**
     * JDBC and JPA writes happen in the stores ({@code queue.control}), the schema migration, and two intended
     * exceptions that keep tables of their own, no mail state: {@code AccountThrottle} its per-account rate counters
     * (table SMTP_ACCOUNT_RATE) in the claim's own transaction, and the webhook publisher's stores
     * ({@link #WEBHOOK_STORES}) its cursors, parked deliveries, endpoint health and work lease.
     */
    @Test
    void onlyTheStoresWrite() {
        noClasses().that().resideOutsideOfPackages("dev.mailqueue.queue.control", "dev.mailqueue.schema.control")
                .and().doNotHaveFullyQualifiedName("dev.mailqueue.account.control.AccountThrottle")
                .and(DescribedPredicate.describe("not a webhook publisher's store",
                        (JavaClass c) -> !WEBHOOK_STORES.contains(c.getFullName())))
                .should().callMethodWhere(DescribedPredicate.<JavaMethodCall>describe(
                        "a JDBC or JPA write", call -> isWrite(call.getTarget().getOwner(), call.getName())))
                .check(MAIN);
    }

    /**
     * No SQL text outside the store inserts into, updates or deletes from a table that holds a mail's state
     * (the check reads the sources, as SQL is text that the class files do not show as a dependency).
     */
    @Test
    void stateTablesAreWrittenOnlyByTheStore() throws IOException {
        Pattern write = Pattern.compile("(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(" + String.join("|", STATE_TABLES)
                + ")\\b", Pattern.CASE_INSENSITIVE);
        Path sources = Path.of("src/main/java/dev/mailqueue");
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String relative = sources.relativize(file).toString().replace('\\', '/');
                if (relative.startsWith("queue/control/") || relative.startsWith("schema/control/")) {
                    continue;
                }
                Matcher m = write.matcher(Files.readString(file));
                while (m.find()) {
                    found.add(relative + ": " + m.group().toUpperCase(Locale.ROOT));
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        assertThat(found).as("state writes outside queue/control").isEmpty();
    }

    private static boolean isWrite(JavaClass owner, String method) {
        boolean jdbc = owner.isAssignableTo(java.sql.Statement.class)
                && (method.startsWith("execute") && !method.equals("executeQuery"));
        boolean jpa = (owner.isAssignableTo(jakarta.persistence.EntityManager.class)
                && List.of("persist", "merge", "remove").contains(method))
                || (owner.isAssignableTo(jakarta.persistence.Query.class) && method.equals("executeUpdate"));
        return jdbc || jpa;
    }

    private static String feature(JavaClass type) {
        String name = type.getPackageName();
        if (!name.startsWith("dev.mailqueue.")) {
            return "";
        }
        String rest = name.substring("dev.mailqueue.".length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }
}
