package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server that keeps the message but answers the end of DATA only after the client's read timeout
 * (issue 15, item 5): the connection is not retried at once over a new one (the server already has the
 * mail); the attempt is recorded IN_DOUBT and the mail is tried again only after the backoff. A
 * duplicate delivery is thus always a mail flagged in doubt, and comes after that flag was recorded.
 * Account 'laggard' reads with a 2 s timeout; its server answers each "late" mail's first DATA after 4 s.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class LateAnswerIT extends QueueServerIT {

    static final int PORT = Integer.getInteger("it.smtp.laggard.port", 3131);

    static ScriptedSmtpServer laggard;

    @BeforeAll
    static void lateServer() {
        laggard = ScriptedSmtpServer.start(PORT);
        laggard.answerLateOnce("late", Duration.ofSeconds(4));
    }

    @AfterAll
    static void stopServer() {
        laggard.close();
    }

    @Test
    void aReplyThatComesAfterTheTimeoutLeavesTheMailInDoubtAndItIsResentOnlyAfterTheBackoff() {
        List<EnqueueReceipt> late = new ArrayList<>();
        List<EnqueueReceipt> prompt = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            EnqueueReceipt r = QueueApi.enqueue(new MailRequest().from("lag@sender.example").to("r" + i + "@lag.example")
                    .subject((i % 2 == 0 ? "late " : "prompt ") + i).text("x").account("laggard"));
            (i % 2 == 0 ? late : prompt).add(r);
        }
        for (EnqueueReceipt r : prompt) {
            MailView mail = QueueApi.awaitStatus(r.getId(), MailStatus.SENT, Duration.ofSeconds(60));
            assertThat(mail.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("SENT");
            assertThat(laggard.arrivals()).filteredOn(a -> a.messageId().equals(r.getMessageId())).hasSize(1);
        }
        for (EnqueueReceipt r : late) {
            MailView mail = QueueApi.awaitStatus(r.getId(), MailStatus.SENT, Duration.ofSeconds(60));
            assertThat(mail.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("IN_DOUBT", "SENT");
            AttemptView doubt = mail.getAttempts().get(0);
            assertThat(doubt.getError()).contains("in doubt", "end of DATA");
            List<ScriptedSmtpServer.Arrival> arrivals = laggard.arrivals().stream()
                    .filter(a -> a.messageId().equals(r.getMessageId())).toList();
            assertThat(arrivals).as("kept by the slow server, then sent again after the backoff").hasSize(2);
            assertThat(arrivals.get(1).at()).as("the resend came after the doubt was recorded, not at once")
                    .isAfter(doubt.getFinishedAt());
        }
    }
}
