package dev.mailqueue.it;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Jakarta Mail transport that queues (src/transport): another application on the server (legacy.war), written
 * for a relay and unchanged, calls {@code Transport.send} on its own mail session, which names protocol
 * {@code mailqueue}. Its mail is queued through the remote EJB inside its JTA transaction and arrives at the real
 * SMTP server with the Message-ID the application's message got; a rolled-back transaction queues nothing; a sender
 * the caller may not use and a recipient the queue refuses surface as the {@code SendFailedException} such an
 * application already handles.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class TransportIT extends QueueServerIT {

    /** The application's mail session as the test server names it. */
    static final String SESSION = System.getProperty("it.transport.session", "mail/queued");

    @Test
    void anUnchangedTransportSendInACommittedTransactionIsQueuedAndArrives() {
        String run = Long.toString(System.nanoTime(), 36);
        String to = "legacy-" + run + "@transport.example";

        String messageId = send("commit", "orders@shop.example", to);

        assertThat(messageId).as("the Message-ID the application's message got").startsWith("<").endsWith(">");
        await().atMost(Duration.ofSeconds(30)).until(() -> !SMTP.inbox(to).isEmpty());
        assertThat(SMTP.inbox(to)).singleElement().satisfies(m -> {
            assertThat(m.getMessageID()).isEqualTo(messageId);
            assertThat(m.getSubject()).isEqualTo("Legacy " + run);
        });
        List<Map<String, Object>> found = mailsTo(to);
        assertThat(found).hasSize(1);
        MailView mail = QueueApi.awaitStatus(((Number) found.get(0).get("id")).longValue(), MailStatus.SENT,
                Duration.ofSeconds(10));
        assertThat(mail.getMessageId()).isEqualTo(messageId);
        assertThat(mail.getAttempts()).as("its attempt log").hasSize(1);
    }

    @Test
    void aSendOutsideATransactionIsQueuedWhenItReturns() {
        String to = "legacy-none-" + Long.toString(System.nanoTime(), 36) + "@transport.example";

        String messageId = send("none", "orders@shop.example", to);

        assertThat(messageId).as("the servlet's answer").startsWith("<");
        assertThat(mailsTo(to)).as("queued when send returned").singleElement()
                .satisfies(m -> assertThat(m.get("messageId")).isEqualTo(messageId));
    }

    @Test
    void aSendInATransactionThatRollsBackQueuesNothing() {
        String to = "legacy-rollback-" + Long.toString(System.nanoTime(), 36) + "@transport.example";

        String answer = send("rollback", "orders@shop.example", to);

        assertThat(answer).as("Transport.send returned (a Message-ID), the caller then rolled back").startsWith("<")
                .endsWith(">");

        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> SMTP.inbox(to).isEmpty());
        assertThat(mailsTo(to)).isEmpty();
    }

    @Test
    void aRefusedSenderOrRecipientIsASendFailedExceptionAndNothingIsQueued() {
        String to = "legacy-refused-" + Long.toString(System.nanoTime(), 36) + "@transport.example";

        String sender = send("commit", "intruder@other.example", to);
        String recipient = send("commit", "orders@shop.example", to + ", \"john doe\"@transport.example");

        assertThat(sender).startsWith("SendFailedException invalid= unsent=" + to + ":").contains("message.From");
        assertThat(recipient).startsWith("SendFailedException invalid=<\"john doe\"@transport.example> unsent=" + to + ":")
                .contains("envelopeTo[1]: must not use a quoted local part");
        assertThat(mailsTo(to)).isEmpty();
    }

    /** @return the servlet's answer: the Message-ID, or the exception it caught */
    static String send(String outcome, String from, String to) {
        String subject = "Legacy " + to.substring("legacy-".length(), to.indexOf('@'));
        HttpResponse<String> response = QueueApi.postForm("/legacy/send?outcome=" + outcome + "&session="
                + encode(SESSION) + "&from=" + encode(from) + "&to=" + encode(to) + "&subject=" + encode(subject));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().strip();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> mailsTo(String recipient) {
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails?recipient="
                + encode(recipient));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return (List<Map<String, Object>>) QueueApi.jsonObject(response.body()).get("mails");
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
