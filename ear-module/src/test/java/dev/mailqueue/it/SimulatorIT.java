package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the tests of a calling application get: the simulator's addresses at {@code simulator.mailqueue.test}
 * produce the outcome and the events their names promise on a live server without one byte reaching an
 * SMTP server. (A server in SANDBOX mode is tested with a second server, in WebhookIT's crash test.)
 */
class SimulatorIT extends QueueServerIT {

    /** Labels unique per run: complaints and bounces put addresses on the suppression list, which a Derby run keeps. */
    static final String RUN = Long.toString(System.currentTimeMillis(), 36);
    static final String AT = "+" + RUN + "@simulator.mailqueue.test";

    @Test
    void eachSimulatorAddressGetsTheOutcomeAndTheEventsItNamesAndNothingIsSent() {
        EnqueueReceipt success = enqueue("success" + AT);
        EnqueueReceipt bounce = enqueue("bounce" + AT);
        EnqueueReceipt defer = enqueue("defer" + AT);
        EnqueueReceipt complaint = enqueue("complaint" + AT);
        EnqueueReceipt suppressed = enqueue("suppressed" + AT);

        QueueApi.awaitStatus(success.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(events(success)).containsExactly("sent success" + AT);

        MailView bounced = QueueApi.awaitStatus(bounce.getId(), MailStatus.FAILED, Duration.ofSeconds(30));
        assertThat(bounced.getRecipients()).singleElement().satisfies(r -> {
            assertThat(r.getStatus()).isEqualTo("REFUSED");
            assertThat(r.getReplyCode()).isEqualTo(550);
            assertThat(r.getEnhancedStatus()).isEqualTo("5.1.1");
        });
        assertThat(events(bounce)).containsExactly("refused bounce" + AT);

        MailView deferred = QueueApi.awaitStatus(defer.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(deferred.getAttempts()).as("refused for now, then accepted").hasSize(2);
        assertThat(events(defer)).containsExactly("deferred -", "sent defer" + AT);

        QueueApi.awaitStatus(complaint.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(events(complaint)).containsExactly("sent complaint" + AT, "complained complaint" + AT));
        assertThat(QueueApi.find(complaint.getId()).getRecipients()).singleElement()
                .satisfies(r -> assertThat(r.getStatus()).isEqualTo("COMPLAINED"));
        EnqueueReceipt again = enqueue("complaint" + AT);
        QueueApi.awaitStatus(again.getId(), MailStatus.SUPPRESSED, Duration.ofSeconds(30)); // a complainer, from then on

        QueueApi.awaitStatus(suppressed.getId(), MailStatus.SUPPRESSED, Duration.ofSeconds(30));
        assertThat(events(suppressed)).containsExactly("suppressed suppressed" + AT);

        for (EnqueueReceipt receipt : List.of(success, bounce, defer, complaint, suppressed, again)) {
            assertThat(SMTP.countWithMessageId(receipt.getMessageId())).as("at the SMTP server").isZero();
        }
    }

    private static EnqueueReceipt enqueue(String to) {
        return QueueApi.enqueue(new MailRequest().from("qa@sender.example").to(to).subject("simulated").text("x"));
    }

    /** @return the mail's events, oldest first, as "type recipient" ("-" for none) */
    @SuppressWarnings("unchecked")
    static List<String> events(EnqueueReceipt receipt) {
        HttpResponse<String> response = QueueApi.get("/api/mails/" + receipt.getId() + "/events");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return QueueApi.jsonList(response.body()).stream().map(e -> {
            Map<String, Object> data = e;
            Object recipient = data.get("recipient");
            return data.get("type") + " " + (recipient == null ? "-" : recipient);
        }).toList();
    }
}
