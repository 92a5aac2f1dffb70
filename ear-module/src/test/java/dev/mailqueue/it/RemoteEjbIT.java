package dev.mailqueue.it;

import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Another enterprise application (caller.war) uses the queue's remote EJB, looked up by its
 * java:global name, as the user its request authenticated as (the test sender), inside its own JTA transaction: a commit queues and delivers the mail, a
 * rollback queues nothing (transactional outbox), invalid input is an exception naming the field, and so is
 * a call larger than the REST API's request budget. Not database-neutral: the caller's transaction is the
 * database's too (XA on MariaDB, one-phase elsewhere), and a call stores megabytes of attachments in it, so it runs
 * in every database suite.
 */
class RemoteEjbIT extends QueueServerIT {

    @Test
    void mailEnqueuedByAnotherApplicationInACommittedTransactionArrives() {
        String[] receipt = call("commit", "shopper@remote.example", "Order 42 confirmed");
        long id = Long.parseLong(receipt[0]);
        String messageId = receipt[1];

        QueueApi.awaitStatus(id, MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.inbox("shopper@remote.example").size() == 1);
        assertThat(SMTP.inbox("shopper@remote.example"))
                .singleElement()
                .satisfies(m -> {
                    assertThat(m.getMessageID()).isEqualTo(messageId);
                    assertThat(m.getSubject()).isEqualTo("Order 42 confirmed");
                });

        HttpResponse<String> viewed = QueueApi.postForm("/caller/enqueue?outcome=find&id=" + id);
        assertThat(viewed.statusCode()).as(viewed.body()).isEqualTo(200);
        String[] view = viewed.body().strip().split(" ");
        assertThat(view[0]).isEqualTo("SENT");
        assertThat(view[1]).isEqualTo("1");
        assertThat(Instant.parse(view[2])).isBefore(Instant.now().plusSeconds(1));
    }

    /**
     * caller.war holds the EJB client jar as the build made it and icu4j (the jar's one dependency beyond Jakarta EE),
     * nothing else of the queue: it validates a MailRequest by the API's own constraints and then enqueues it. On
     * 67a2b04 the jar lacked the address grammar its constraint uses (NoClassDefFoundError).
     */
    @Test
    void anApplicationWithTheClientJarAloneValidatesAMailRequestAndEnqueuesIt() {
        HttpResponse<String> valid = QueueApi.postForm("/caller/enqueue?outcome=validate&from=orders%40shop.example"
                + "&to=client-jar%40remote.example");
        assertThat(valid.body()).as("no violation").isEqualTo("[]");
        HttpResponse<String> invalid = QueueApi.postForm("/caller/enqueue?outcome=validate&from=orders%40shop.example"
                + "&to=not%20an%20address");
        assertThat(invalid.statusCode()).as(invalid.body()).isEqualTo(200);
        assertThat(invalid.body()).startsWith("[to[0].<list element>: ");

        HttpResponse<String> queued = QueueApi.postForm("/caller/enqueue?outcome=commit&to=client-jar%40remote.example"
                + "&subject=client-jar");
        assertThat(queued.body()).as("id and Message-ID").matches("\\d+ <[^>]+>");
    }

    @Test
    void mailEnqueuedInATransactionThatRollsBackIsNeverQueued() {
        String[] receipt = call("rollback", "ghost@remote.example", "Order 43 rolled back");
        long id = Long.parseLong(receipt[0]);

        assertThat(QueueApi.get("/api/mails/" + id).statusCode()).isEqualTo(404);
        // Let a few dispatch intervals pass: still nothing queued, nothing sent.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> SMTP.inbox("ghost@remote.example").isEmpty());
        assertThat(QueueApi.get("/api/mails/" + id).statusCode()).isEqualTo(404);
    }

    @Test
    void invalidMailFromTheRemoteViewIsAnApplicationExceptionNamingTheField() {
        HttpResponse<String> response = QueueApi.postForm("/caller/enqueue?outcome=invalid&subject=x");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).startsWith("dev.mailqueue.api.InvalidMailException").contains("to[0]");
    }

    /**
     * The REST API's size budget holds for the remote view too (4 MiB on the test server): one enqueueAll of three
     * mails with a 900,000-byte file each (1.2 MB of base64 each) is queued; with a fourth, the call is refused
     * naming the mail and field at which it passes the budget, and none of the four is queued.
     */
    @Test
    void anEnqueueAllLargerThanTheRequestBudgetIsRefusedNamingTheFieldAndQueuesNothing() {
        String run = Long.toString(System.currentTimeMillis(), 36);
        HttpResponse<String> within = QueueApi.postForm("/caller/enqueue?outcome=batch&count=3&bytes=900000"
                + "&to=parts@remote.example&reference=within-" + run);
        assertThat(within.statusCode()).as(within.body()).isEqualTo(200);
        assertThat(within.body().strip().split(" ")).as(within.body()).hasSize(3).allMatch(id -> id.matches("[0-9]+"));
        assertThat(mailsWithReference("within-" + run)).isEqualTo(3);

        HttpResponse<String> over = QueueApi.postForm("/caller/enqueue?outcome=batch&count=4&bytes=900000"
                + "&to=parts@remote.example&reference=over-" + run);

        assertThat(over.statusCode()).as(over.body()).isEqualTo(200);
        assertThat(over.body()).startsWith("dev.mailqueue.api.InvalidMailException")
                .contains("[3].attachments", "4194304 bytes", "mailqueue.http.max-request-bytes");
        assertThat(mailsWithReference("over-" + run)).as("nothing of the refused call is queued").isZero();
    }

    private static long mailsWithReference(String reference) {
        HttpResponse<String> page = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails?reference=" + reference);
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        return ((Number) QueueApi.jsonObject(page.body()).get("total")).longValue();
    }

    private static String[] call(String outcome, String to, String subject) {
        HttpResponse<String> response = QueueApi.postForm("/caller/enqueue?outcome=" + outcome + "&to=" + to
                + "&subject=" + subject.replace(" ", "+"));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().strip().split(" ");
    }
}
