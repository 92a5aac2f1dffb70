package dev.mailqueue.it;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the server under test serves MicroProfile Health and its Prometheus metrics, and how to read them: Open
 * Liberty on the application's ports (health to anyone, {@code /metrics?scope=application} to mail-admin over
 * HTTPS), WildFly on its management port 9990 (both without a login; {@code src/wildfly/configure.cli}).
 */
final class Observability {

    /** Whether the tests run against WildFly ({@code -Dit.server=wildfly}). */
    static final boolean WILDFLY = "wildfly".equals(System.getProperty("it.server"));
    /** WildFly's management interface: health and metrics. */
    static final String WILDFLY_MANAGEMENT = "http://localhost:9990";

    private Observability() {
    }

    /** @return {@code GET /health/ready} of the server under test */
    static HttpResponse<String> ready() {
        return QueueApi.getAs(null, WILDFLY ? WILDFLY_MANAGEMENT : QueueApi.BASE, "/health/ready");
    }

    /** @return {@code GET /health/live} of the server under test */
    static HttpResponse<String> live() {
        return QueueApi.getAs(null, WILDFLY ? WILDFLY_MANAGEMENT : QueueApi.BASE, "/health/live");
    }

    /** @return the application's metrics in Prometheus text format, as the server's operator reads them */
    static HttpResponse<String> metrics() {
        return WILDFLY ? QueueApi.getAs(null, WILDFLY_MANAGEMENT, "/metrics") : libertyMetrics(QueueApi.HTTPS_BASE);
    }

    /**
     * @param httpsBase a Liberty test server's HTTPS address, e.g. {@link SecondServer#HTTPS_BASE}
     * @return its application's metrics in Prometheus text format, read by a mail-admin
     */
    static HttpResponse<String> libertyMetrics(String httpsBase) {
        return QueueApi.getAs(TestUser.ADMIN, httpsBase, "/metrics?scope=application");
    }

    /** Prints the queue's samples ({@code mailqueue_*}) of {@link #metrics()}, for whoever compares the servers. */
    static void printQueueMetrics() {
        metrics().body().lines().filter(line -> line.startsWith("mailqueue_")).forEach(System.out::println);
    }

    /**
     * Asserts what the queue publishes on either server once a mail was sent: the queue depth per status, the
     * sent and failed counters, the claim and send timers, the dispatch rate and the account and journal gauges,
     * under the same names on Liberty (MicroProfile Metrics) and WildFly (Micrometer).
     *
     * @param text the metrics in Prometheus text format ({@link #metrics()})
     */
    static void assertQueueMetricsAfterASend(String text) {
        for (String status : List.of("QUEUED", "SENDING", "SENT", "FAILED", "CANCELLED", "EXPIRED", "HELD", "SUPPRESSED")) {
            assertThat(text).containsPattern("mailqueue_queue_depth\\{[^}]*status=\"" + status + "\"");
        }
        assertThat(value(text, "mailqueue_queue_depth\\{[^}]*status=\"SENT\"[^}]*\\}")).isGreaterThanOrEqualTo(1);
        assertThat(value(text, "mailqueue_mails_sent_total\\{[^}]*\\}")).isGreaterThanOrEqualTo(1);
        assertThat(value(text, "mailqueue_claim_duration_seconds_count\\{[^}]*\\}")).isGreaterThanOrEqualTo(1);
        assertThat(value(text, "mailqueue_send_duration_seconds_count\\{[^}]*\\}")).isGreaterThanOrEqualTo(1);
        assertThat(value(text, "mailqueue_send_duration_seconds_sum\\{[^}]*\\}")).isGreaterThan(0);
        assertThat(text).contains("mailqueue_mails_failed_total", "mailqueue_dispatch_rate",
                "mailqueue_smtp_accounts_down", "mailqueue_smtp_account_outages", "mailqueue_journal_unavailable");
    }

    /** @return check name to status, from a MicroProfile Health answer */
    @SuppressWarnings("unchecked")
    static Map<String, String> checks(String body) {
        List<Map<String, Object>> checks = (List<Map<String, Object>>) QueueApi.jsonObject(body).get("checks");
        return checks.stream().collect(Collectors.toMap(c -> (String) c.get("name"), c -> (String) c.get("status")));
    }

    /** @return the value of the first Prometheus sample whose name and labels match {@code pattern} */
    static double value(String text, String pattern) {
        Matcher m = Pattern.compile("(?m)^" + pattern + "\\s+(\\S+)").matcher(text);
        assertThat(m.find()).as("sample %s in%n%s", pattern, text).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
