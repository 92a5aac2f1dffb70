package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With the SMTP server down every attempt fails and is logged, attempts remaining count down to 0
 * and the mail ends FAILED; once the server is back, new mail is delivered and the failed one is not.
 * The test server allows 3 attempts, 300 ms apart.
 */
class SmtpOutageIT extends QueueServerIT {

    @Test
    void failedAttemptsCountDownToFailedAndDeliveryResumesWhenTheServerIsBack() {
        SMTP.stop();
        EnqueueReceipt doomed = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("nobody-home@to.example").subject("while the server is down").text("x"));

        MailView failed = QueueApi.awaitStatus(doomed.getId(), MailStatus.FAILED, Duration.ofSeconds(60));
        assertThat(failed.getAttemptsRemaining()).isZero();
        assertThat(failed.getSentAt()).isNull();
        assertThat(failed.getLastError()).contains("onnect");
        assertThat(failed.getAttempts()).hasSize(3).allSatisfy(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo("FAILED");
            assertThat(attempt.getSmtpReplyCode()).as("no server, no reply").isNull();
            assertThat(attempt.getError()).contains("onnect");
            assertThat(attempt.getFinishedAt()).isAfterOrEqualTo(attempt.getStartedAt());
        });
        assertThat(failed.getAttempts()).extracting(AttemptView::getStartedAt).isSorted();

        SMTP.start();
        EnqueueReceipt next = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("back-again@to.example").subject("after the outage").text("y"));
        QueueApi.awaitStatus(next.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(next.getMessageId()) == 1);

        // The given-up mail stays FAILED and is not sent behind the caller's back.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                .until(() -> SMTP.inbox("nobody-home@to.example").isEmpty());
        assertThat(QueueApi.find(doomed.getId()).getStatus()).isEqualTo(MailStatus.FAILED);
    }
}
