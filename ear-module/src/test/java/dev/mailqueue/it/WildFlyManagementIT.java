package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.mailqueue.it.Observability.checks;
import static dev.mailqueue.it.Observability.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * WildFly's own variants of what {@link OperationsIT} checks on Liberty: the queue's health checks and its
 * metrics (Micrometer's Prometheus registry, under the names Liberty's MicroProfile Metrics gives them) on
 * WildFly's management port, the OpenAPI description on the application's, and the dispatch and retention jobs
 * with their executions in WildFly's management model (what its CLI and web console show), read with jboss-cli
 * (connected as the local user, as an operator on the machine would). Runs with -Dit.server=wildfly only.
 */
@EnabledIfSystemProperty(named = "it.server", matches = "wildfly")
class WildFlyManagementIT extends QueueServerIT {

    @Test
    void theQueuesHealthChecksAnswerOnTheManagementPortAndOpenApiOnTheApplicationPort() {
        HttpResponse<String> ready = Observability.ready();
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(checks(ready.body())).as(ready.body()).containsEntry("database", "UP")
                .containsEntry("smtp-accounts", "UP").containsEntry("webhooks", "UP").containsEntry("delivery-mode", "UP")
                .containsEntry("dispatch-record", "UP")
                .containsEntry("deployments-status", "UP");
        assertThat(ready.body()).as("the database check names the product").contains("\"mailqueue.ear\":\"OK\"", "\"product\":\"");

        HttpResponse<String> live = Observability.live();
        assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
        assertThat(checks(live.body())).as(live.body()).containsEntry("dispatch-timer", "UP");

        HttpResponse<String> openapi = QueueApi.getAs(null, QueueApi.BASE, "/openapi");
        assertThat(openapi.statusCode()).isEqualTo(200);
        assertThat(openapi.body()).contains("/api/mails:", "/api/admin/mails:");
    }

    @Test
    void theQueuesMetricsAreOnTheManagementPortUnderLibertysNames() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("metered@to.example").subject("counted on WildFly").text("x"));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            HttpResponse<String> metrics = Observability.metrics();
            assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
            String text = metrics.body();
            Observability.assertQueueMetricsAfterASend(text);
            assertThat(value(text, "mailqueue_mails_sent_total\\{[^}]*WF_DEPLOYMENT=\"mailqueue.ear\"[^}]*\\}"))
                    .as("tagged with the deployment").isGreaterThanOrEqualTo(1);
        });
        Observability.printQueueMetrics();
    }

    @Test
    void theDispatchJobAndItsExecutionsAreInWildFlysManagementModel() throws Exception {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("management@to.example").subject("a dispatch execution").text("x"));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        String jobs = cli("/deployment=mailqueue.ear/subdeployment=mailqueue-ejb.jar/subsystem=batch-jberet"
                + ":read-resource(include-runtime=true,recursive=true)");
        assertThat(jobs).contains("\"outcome\" => \"success\"", "\"mail-dispatch\" =>", "\"mail-retention\" =>",
                "\"batch-status\" => \"COMPLETED\"");
    }

    /** @return what jboss-cli printed for one command against the running test server */
    private static String cli(String command) throws IOException, InterruptedException {
        Path home = Path.of(System.getProperty("it.wildfly.home"));
        Process process = new ProcessBuilder(home.resolve("bin/jboss-cli.sh").toString(), "--connect",
                "--command=" + command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("jboss-cli ended").isTrue();
        return output;
    }
}
