package dev.mailqueue.it;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The Jakarta Mail transport that queues (src/transport): another application on the server (legacy.war), written
 * for a relay and unchanged, calls {@code Transport.send} on its own mail session, which names protocol
 * {@code mailqueue}. Its mail is queued through the remote EJB inside its JTA transaction and arrives at the real
 * SMTP server with the Message-ID the application's message got; a rolled-back transaction queues nothing; a sender
 * the caller may not use and a recipient the queue refuses surface as the {@code SendFailedException} such an
 * application already handles. Not database-neutral: the caller's transaction is the database's too, so it runs in
 * every database suite.
 */
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

    /**
     * The caller writes to its own database, an XA data source (embedded Derby), in the same JTA transaction as the
     * send: both commit, or both roll back, on every database (on PostgreSQL, whose data source is one-phase, the
     * transaction manager commits the queue's last).
     */
    @Test
    void aCallerThatAlsoWritesItsOwnXaDatabaseCommitsBothOrRollsBackBoth() {
        assumeThat(Observability.WILDFLY).as("the caller's own data sources are configured for Liberty").isFalse();

        assertBothCommitOrBothRollBack("jdbc/legacyOrdersXa");
    }

    /**
     * The same with a one-phase data source of the caller's, as many applications have. Two one-phase resources
     * cannot share a transaction, so this needs the queue's data source to be XA, as it is on MariaDB
     * (liberty/db/mariadb.xml): there both commit or both roll back. On PostgreSQL (XA would need the server's
     * {@code max_prepared_transactions}, 0 by default) and Derby (its XA branches failed the dispatch's
     * transactions) it is one-phase: the send fails, the caller's transaction rolls back, and neither its row nor
     * a mail is left. Before MariaDB was made XA, it answered as they do.
     */
    @Test
    void aCallerThatAlsoWritesItsOwnOnePhaseDatabaseCommitsBothOrRollsBackBothWhereTheQueueIsXa() {
        assumeThat(Observability.WILDFLY).as("the caller's own data sources are configured for Liberty").isFalse();
        if ("mariadb".equals(System.getProperty("it.db", "derby"))) {
            assertBothCommitOrBothRollBack("jdbc/legacyOrders");
            return;
        }
        String run = Long.toString(System.nanoTime(), 36);
        String to = "legacy-order-1pc-" + run + "@transport.example";

        String answer = send("commit", "orders@shop.example", to, "&orders=" + encode("jdbc/legacyOrders") + "&order=p" + run);

        assertThat(answer).as("the caller's answer").startsWith("jakarta.mail.MessagingException: the mail queue did not take");
        assertThat(orders("jdbc/legacyOrders", "p" + run)).as("the caller's own row, rolled back with the send").isZero();
        assertThat(mailsTo(to)).as("nothing queued").isEmpty();
    }

    private static void assertBothCommitOrBothRollBack(String dataSource) {
        String run = Long.toString(System.nanoTime(), 36);
        String committed = "legacy-order-" + run + "@transport.example";
        String rolledBack = "legacy-order-back-" + run + "@transport.example";

        String messageId = send("commit", "orders@shop.example", committed, "&orders=" + encode(dataSource) + "&order=c" + run);
        String answer = send("rollback", "orders@shop.example", rolledBack, "&orders=" + encode(dataSource) + "&order=r" + run);

        assertThat(messageId).as("the caller's answer: both writes committed").startsWith("<").endsWith(">");
        assertThat(answer).as("the caller's answer: Transport.send returned, then it rolled back").startsWith("<");
        assertThat(orders(dataSource, "c" + run)).as("the caller's own row, committed").isEqualTo(1);
        assertThat(orders(dataSource, "r" + run)).as("the caller's own row, rolled back").isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> !SMTP.inbox(committed).isEmpty());
        assertThat(mailsTo(committed)).singleElement().satisfies(m -> assertThat(m.get("messageId")).isEqualTo(messageId));
        assertThat(mailsTo(rolledBack)).as("nothing queued with the rolled-back order").isEmpty();
    }

    private static long orders(String dataSource, String order) {
        HttpResponse<String> response = QueueApi.get("/legacy/send?orders=" + encode(dataSource) + "&order=" + encode(order));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Long.parseLong(response.body().strip());
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
        return send(outcome, from, to, "");
    }

    /**
     * @param more further parameters of the request, each {@code &name=value}, encoded
     * @return the servlet's answer: the Message-ID, or the exception it caught
     */
    static String send(String outcome, String from, String to, String more) {
        String subject = "Legacy " + to.substring("legacy-".length(), to.indexOf('@'));
        HttpResponse<String> response = QueueApi.postForm("/legacy/send?outcome=" + outcome + "&session="
                + encode(SESSION) + "&from=" + encode(from) + "&to=" + encode(to) + "&subject=" + encode(subject) + more);
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
