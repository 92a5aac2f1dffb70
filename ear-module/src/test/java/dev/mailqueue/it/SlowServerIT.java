package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A relay that takes 1 s to answer each DATA, 100 mails (issue 9: slow server; issue 15, item 4: no SMTP
 * I/O inside a JTA transaction). The test server's claimers each send about 25 of them (a batch), 25 s of SMTP,
 * far beyond their lease (6 s) and their chunk transaction's timeout (20 s): leases are renewed while a
 * claimer lives, and SMTP runs outside the chunk's transaction, so nothing is taken back, nothing is in
 * doubt, no job execution fails, every mail arrives once with one attempt, and outcomes are recorded as
 * they happen, not at a chunk's end.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class SlowServerIT extends QueueServerIT {

    static final int PORT = Integer.getInteger("it.smtp.tardy.port", 3130);
    static final int MAILS = 100;

    static ScriptedSmtpServer tardy;

    @BeforeAll
    static void slowRelay() {
        tardy = ScriptedSmtpServer.start(PORT);
        tardy.delayData(Duration.ofMillis(1000));
    }

    @AfterAll
    static void stopRelay() {
        tardy.close();
    }

    @Test
    void aRelayTakingSecondsAMailDeliversEachOnceWithoutLostLeasesOrFailedChunks() {
        long executionsBefore = failedExecutions();
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < MAILS; i++) {
            batch.add(QueueApi.toJson(new MailRequest().from("slow@sender.example").to("r" + i + "@tardy.example")
                    .subject("tardy " + i).text("x").account("tardy")));
        }
        HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", batch) + "]");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        List<EnqueueReceipt> receipts = QueueApi.receipts(response.body());
        Instant start = Instant.now();

        // Recorded as they happen: well before the last mail is sent, some are SENT in the database.
        await().atMost(Duration.ofSeconds(30)).until(() -> QueueApi.find(receipts.get(0).getId()).getStatus() == MailStatus.SENT
                || receipts.stream().limit(8).anyMatch(r -> QueueApi.find(r.getId()).getStatus() == MailStatus.SENT));
        Duration firstRecorded = Duration.between(start, Instant.now());

        for (EnqueueReceipt r : receipts) {
            MailView mail = QueueApi.awaitStatus(r.getId(), MailStatus.SENT, Duration.ofMinutes(3));
            assertThat(mail.getAttempts()).as("mail %d", r.getId()).singleElement().satisfies(a -> {
                assertThat(a.getOutcome()).isEqualTo("SENT");
                assertThat(a.getError()).isNull();
            });
        }
        Duration all = Duration.between(start, Instant.now());
        Map<String, Long> arrivals = tardy.arrivals().stream()
                .collect(Collectors.groupingBy(ScriptedSmtpServer.Arrival::messageId, Collectors.counting()));
        assertThat(arrivals).hasSize(MAILS).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1L));
        assertThat(failedExecutions()).as("no dispatch job execution failed").isEqualTo(executionsBefore);
        System.out.printf("slow relay (1.5 s a mail): first outcome recorded after %d ms, %d mails sent once in %d ms%n",
                firstRecorded.toMillis(), MAILS, all.toMillis());
        assertThat(firstRecorded).as("long before the run ends").isLessThan(all.dividedBy(2));
    }

    /** @return how many dispatch job executions of the test server ended FAILED */
    static long failedExecutions() {
        // As the administrator: with batch security on, only a batch role may read job executions.
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/probe/db?op=executions&job=mail-dispatch");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().lines().filter(l -> l.contains("FAILED")).count();
    }
}
