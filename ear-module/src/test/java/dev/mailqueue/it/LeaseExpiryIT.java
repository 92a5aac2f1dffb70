package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker that claimed a mail and died leaves it SENDING under its lease. Nobody touches it while
 * the lease runs; once it expires the mail is claimed again and delivered exactly once. As the dead worker's
 * first unrecorded mail it is taken back in doubt (it may have been sent: the lean store keeps no mark of a
 * send begun), and sent again with the same Message-ID.
 */
class LeaseExpiryIT extends QueueServerIT {

    @Test
    void mailOfADeadWorkerIsClaimedAgainAfterItsLeaseExpiresAndDeliveredOnce() {
        // Not due for an hour, so no live claimer takes it before the "dead worker" does.
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("patient@to.example").subject("survives a dead worker").text("x")
                .notBefore(Instant.now().plusSeconds(3600)));
        HttpResponse<String> leased = QueueApi.postForm("/probe/db?op=lease&id=" + receipt.getId()
                + "&owner=dead-host/dead-server%2399&expiresInMs=4000");
        assertThat(leased.body().strip()).as(leased.body()).isEqualTo("1");
        Instant leaseEnds = Instant.now().plusMillis(4000);

        // While the lease runs, the row belongs to the dead worker: not sent, still SENDING.
        await().during(Duration.ofMillis(2500)).atMost(Duration.ofMillis(3500))
                .until(() -> QueueApi.find(receipt.getId()).getStatus() == MailStatus.SENDING);
        assertThat(SMTP.countWithMessageId(receipt.getMessageId())).isZero();

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(sent.getSentAt()).isAfter(leaseEnds.minusMillis(500));
        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("IN_DOUBT", "SENT");
        assertThat(sent.getAttempts().get(0).getServerInstance()).isEqualTo("dead-host/dead-server");
        assertThat(sent.getAttempts().get(1).getServerInstance()).endsWith("/" + SERVER_NAME);
        await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(receipt.getMessageId()) == 1);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                .until(() -> SMTP.countWithMessageId(receipt.getMessageId()) == 1);
    }
}
