package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One mail's trouble is its own (issue 15, item 3): a mail that names a recipient twice (also in another
 * letter case) among recipients the server partly refuses, queued in one batch with 20 plain mails. The
 * repeated recipient is sent the mail once (recipients are de-duplicated at enqueue, the first place
 * kept), its refused recipient is recorded, and every mail of the batch is delivered exactly once.
 */
class DuplicateRecipientIT extends QueueServerIT {

    static final int PORT = Integer.getInteger("it.smtp.backup.port", 3126);

    static ScriptedSmtpServer backup;

    @BeforeAll
    static void server() {
        backup = ScriptedSmtpServer.start(PORT);
    }

    @AfterAll
    static void stop() {
        backup.close();
    }

    @Test
    void aRecipientNamedTwiceAndOneRefusedSpoilNoOtherMailAndNothingIsSentTwice() {
        backup.refuseRecipient("bad@dup.example", 550, "5.1.1 no such user", -1);
        List<String> batch = new ArrayList<>();
        batch.add(QueueApi.toJson(new MailRequest().from("dup@sender.example")
                .to("ok@dup.example", "ok@dup.example", "bad@dup.example").cc("OK@Dup.example")
                .subject("repeated recipient").text("x").account("backup")));
        for (int i = 0; i < 20; i++) {
            batch.add(QueueApi.toJson(new MailRequest().from("dup@sender.example").to("plain" + i + "@dup.example")
                    .subject("plain " + i).text("x").account("backup")));
        }
        HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", batch) + "]");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        List<EnqueueReceipt> receipts = QueueApi.receipts(response.body());

        MailView repeated = QueueApi.awaitStatus(receipts.get(0).getId(), MailStatus.SENT, Duration.ofSeconds(60));
        assertThat(repeated.getTo()).containsExactly("ok@dup.example", "bad@dup.example");
        assertThat(repeated.getCc()).as("the same mailbox in another case").isEmpty();
        assertThat(repeated.getRecipients()).extracting(r -> r.getAddress() + "=" + r.getStatus())
                .containsExactlyInAnyOrder("ok@dup.example=SENT", "bad@dup.example=REFUSED");
        assertThat(repeated.getAttempts()).hasSize(1);
        for (EnqueueReceipt r : receipts.subList(1, receipts.size())) {
            assertThat(QueueApi.awaitStatus(r.getId(), MailStatus.SENT, Duration.ofSeconds(60)).getAttempts()).hasSize(1);
        }
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> backup.arrivals().size() == 21);
        Map<String, Long> data = backup.arrivals().stream()
                .collect(Collectors.groupingBy(ScriptedSmtpServer.Arrival::messageId, Collectors.counting()));
        assertThat(data).as("each mail's DATA once").hasSize(21).allSatisfy((id, n) -> assertThat(n).isEqualTo(1L));
        assertThat(backup.rcptCount("ok@dup.example")).as("RCPT TO once for the repeated recipient").isEqualTo(1);
    }
}
