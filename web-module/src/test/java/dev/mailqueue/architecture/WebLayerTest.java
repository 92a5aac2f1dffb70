package dev.mailqueue.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The web module speaks to the EJB module through its boundaries and the API's types ({@code dev.mailqueue.api},
 * the {@code *Local} interfaces and EJBs of {@code boundary} packages), never through the EJB module's
 * {@code control} and {@code entity} packages, so that the store and the delivery core can change behind the REST
 * API. The intended exceptions are written in {@link #INTENDED}, each with its reason; a failure names the class,
 * the member and the line that break the rule.
 */
class WebLayerTest {

    /**
     * The health checks ({@code health.boundary}) read the parts whose health they report (the data source, the
     * dispatch heartbeat, the SMTP accounts, the webhook endpoints): they run without a caller, where every EJB
     * boundary asks for a role.
     */
    static final String HEALTH_CHECKS = "dev.mailqueue.health.boundary";

    /** EJB-module classes of control packages the web module may use, and why. */
    static final Map<String, String> INTENDED = Map.of(
            "dev.mailqueue.log.control.LogText",
            "the one way every layer puts untrusted text into a log line",
            "dev.mailqueue.settings.control.Settings",
            "the one reader of settings, for every layer",
            "dev.mailqueue.webhook.control.EventJson",
            "the one JSON form of a delivery event, written alike by the webhook sender and GET .../events",
            "dev.mailqueue.unsubscribe.control.UnsubscribeToken",
            "the verified link the unsubscribe boundary answers with, which the page shows",
            "dev.mailqueue.queue.control.StoreException",
            "the one rule telling a database that cannot be reached (503, try again) from a failure of the request",
            "dev.mailqueue.budget.control.InflightBudget",
            "the one in-flight memory budget that HTTP bodies and SMTP submission's DATA draw on together",
            "dev.mailqueue.budget.control.BodyBudget$Share",
            "a share of that budget, closed when the body is done");

    static final JavaClasses WEB = new ClassFileImporter().importPath(Path.of("target/classes"));

    static final DescribedPredicate<JavaClass> EJB_INTERNALS = DescribedPredicate.describe(
            "the EJB module's control or entity packages (outside the written exceptions)",
            type -> isEjbInternal(type) && !INTENDED.containsKey(type.getName()));

    @Test
    void theWebLayerUsesOnlyTheApiAndTheBoundaries() {
        assertThat(WEB).as("the web module's classes").hasSizeGreaterThan(20);
        noClasses().that().resideOutsideOfPackage(HEALTH_CHECKS)
                .should().dependOnClassesThat(EJB_INTERNALS)
                .check(WEB);
    }

    /** An exception that nothing needs any more is taken off the list, so the list stays the truth. */
    @Test
    void everyWrittenExceptionIsStillUsed() {
        Set<String> used = new TreeSet<>();
        for (JavaClass type : WEB) {
            if (!type.getPackageName().equals(HEALTH_CHECKS)) {
                for (Dependency d : type.getDirectDependenciesFromSelf()) {
                    used.add(d.getTargetClass().getName());
                }
            }
        }
        assertThat(List.copyOf(INTENDED.keySet())).as("exceptions no class of the web module needs").allMatch(used::contains);
    }

    private static boolean isEjbInternal(JavaClass type) {
        String name = type.getPackageName();
        return name.startsWith("dev.mailqueue.") && !name.startsWith("dev.mailqueue.http.") // the web module's own
                && (name.endsWith(".control") || name.endsWith(".entity") || name.contains(".control.")
                || name.contains(".entity."));
    }
}
