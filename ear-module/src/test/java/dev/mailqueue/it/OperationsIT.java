package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.mailqueue.it.Observability.checks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the server tells its operator besides the admin API, against the running server: MicroProfile
 * Health (ready while the database answers, SMTP accounts reported in it; alive while the dispatch timer fires), MicroProfile
 * Metrics (queue depth per status, sent and failed counters, dispatch rate, claim and send timers;
 * mail-admin only, over HTTPS), the OpenAPI description, and the batch console's REST API showing the
 * dispatch job's instances and executions to the admin group only.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class OperationsIT extends QueueServerIT {

    @Test
    void readyForEnqueuesWhileTheRelayIsAwayWithTheAccountShownDownAndAliveWhileTheTimerFires() {
        HttpResponse<String> ready = QueueApi.getAs(null, QueueApi.BASE, "/health/ready");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(checks(ready.body())).containsEntry("database", "UP").containsEntry("smtp-accounts", "UP")
                .containsEntry("dispatch-record", "UP");

        SMTP.stop();
        try {
            EnqueueReceipt waiting = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                    .to("patient@to.example").subject("while the relay is away").text("x"));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                HttpResponse<String> stillReady = QueueApi.getAs(null, QueueApi.BASE, "/health/ready");
                assertThat(stillReady.statusCode()).as("enqueues are still welcome").isEqualTo(200);
                assertThat(stillReady.body()).contains("\"mailqueue\":\"down since");
            });
            assertThat(QueueApi.find(waiting.getId())).satisfies(mail -> {
                assertThat(mail.getStatus()).isIn(MailStatus.QUEUED, MailStatus.SENDING);
                assertThat(mail.getAttempts()).as("no attempt spent on an unreachable relay").isEmpty();
            });
            SMTP.start();
            QueueApi.awaitStatus(waiting.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        } finally {
            SMTP.stop();
            SMTP.start();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> QueueApi.getAs(null, QueueApi.BASE, "/health/ready")
                .body().contains("\"mailqueue\":\"up\""));

        HttpResponse<String> live = QueueApi.getAs(null, QueueApi.BASE, "/health/live");
        assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
        assertThat(checks(live.body())).containsEntry("dispatch-timer", "UP");
    }

    @Test
    void metricsShowQueueDepthThroughputAndLatenciesToTheAdminOnly() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("metered@to.example").subject("counted").text("x"));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            HttpResponse<String> metrics = Observability.metrics();
            assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
            Observability.assertQueueMetricsAfterASend(metrics.body());
        });
        Observability.printQueueMetrics();
        assertThat(QueueApi.getAs(TestUser.SENDER, QueueApi.HTTPS_BASE, "/metrics").statusCode()).isEqualTo(403);
    }

    @Test
    void theOpenApiDescriptionDocumentsTheApi() {
        HttpResponse<String> openapi = QueueApi.getAs(null, QueueApi.BASE, "/openapi");
        assertThat(openapi.statusCode()).isEqualTo(200);
        assertThat(openapi.body()).contains("/api/mails:", "/api/mails/batch:", "/api/admin/mails:",
                "/api/admin/mails/requeue:", "/api/admin/statistics:", "scheme: basic", "Search mails");
        // Liberty validates the document it builds and logs what is wrong, e.g. an array schema with no items.
        assertThat(QueueState.logSince(0)).as("OpenAPI validation errors in the server's log")
                .noneMatch(line -> line.contains("CWWKO1650E"));
    }

    @Test
    void theBatchConsoleShowsTheDispatchJobToTheAdminGroupOnly() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("batch-console@to.example").subject("a dispatch execution").text("x"));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        // The list holds every job of the server, newest first (the bounce intake's too, which may be
        // running at this moment): pick the dispatch job's instances and wait until one has completed.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> instances = QueueApi.getAs(TestUser.ADMIN, QueueApi.HTTPS_BASE,
                    "/ibm/api/batch/jobinstances?pageSize=500");
            assertThat(instances.statusCode()).as(instances.body()).isEqualTo(200);
            List<Map<String, Object>> dispatch = QueueApi.jsonList(instances.body()).stream()
                    .filter(i -> "mail-dispatch".equals(i.get("jobName"))).toList();
            assertThat(dispatch).as(instances.body()).isNotEmpty()
                    .allSatisfy(i -> assertThat(i.get("submitter")).isEqualTo("dispatcher"));
            assertThat(dispatch).as(instances.body())
                    .anySatisfy(i -> assertThat(i.get("batchStatus")).isEqualTo("COMPLETED"));
            Object completed = dispatch.stream().filter(i -> "COMPLETED".equals(i.get("batchStatus")))
                    .findFirst().orElseThrow().get("instanceId");
            HttpResponse<String> executions = QueueApi.getAs(TestUser.ADMIN, QueueApi.HTTPS_BASE,
                    "/ibm/api/batch/jobinstances/" + new java.math.BigDecimal(completed.toString()).longValue()
                            + "/jobexecutions");
            assertThat(executions.statusCode()).as(executions.body()).isEqualTo(200);
            assertThat(executions.body()).containsPattern("\"batchStatus\":\\s*\"COMPLETED\"");
        });

        // Liberty's /ibm/api answers a user outside the administrator role 401 (log in as someone else).
        assertThat(QueueApi.getAs(TestUser.SENDER, QueueApi.HTTPS_BASE, "/ibm/api/batch/jobinstances").statusCode())
                .isIn(401, 403);
        HttpResponse<String> console = QueueApi.getAs(TestUser.ADMIN, QueueApi.HTTPS_BASE, "/adminCenter/");
        assertThat(console.statusCode()).as("Admin Center").isIn(200, 302);
    }
}
