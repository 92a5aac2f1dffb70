package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counts per status that the statistics, the console and the depth gauges read ({@link StatusCounts}), kept by
 * the stores as they change statuses, against a brute-force count of the same data after every step: each mail's
 * latest log row that set a status, for mails out of the queue (the query the statistics ran before V17, written
 * here again, sharing nothing with the kept counts). Every store that changes a counted status takes part: the
 * outcome of an attempt, the suppression at enqueue, the lease sweep, the operator's requeue, cancel and delete, and
 * the retention delete.
 */
@Tag("database")
class StatusCountsTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    /** The brute force: every status row of the log, with two anti-joins. */
    static final String BRUTE_FORCE = "SELECT a.MAIL_STATUS, COUNT(*) FROM MAIL_ATTEMPT a"
            + " WHERE a.MAIL_STATUS IS NOT NULL"
            + " AND NOT EXISTS (SELECT 1 FROM MAIL_ATTEMPT b WHERE b.MAIL_ID = a.MAIL_ID AND b.MAIL_STATUS IS NOT NULL"
            + " AND b.ID > a.ID)"
            + " AND NOT EXISTS (SELECT 1 FROM MAIL_QUEUE q WHERE q.MAIL_ID = a.MAIL_ID)"
            + " GROUP BY a.MAIL_STATUS";

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    MailStates mails = new MailStates(db);

    Instant at(int minute) {
        return NOW.plusSeconds(60L * minute);
    }

    long enqueue(String subject, int minute) {
        return mails.enqueue(mail(subject, 4, at(minute)));
    }

    Map<MailStatus, Long> kept() {
        return db.keptCounts();
    }

    Map<MailStatus, Long> bruteForce() {
        Map<MailStatus, Long> counts = new EnumMap<>(MailStatus.class);
        StatusCounts.COUNTED.forEach(status -> counts.put(status, 0L));
        for (String row : db.rows(BRUTE_FORCE)) {
            String[] cells = row.split("/");
            MailStatus status = MailStatus.valueOf(cells[0].trim());
            if (counts.containsKey(status)) {
                counts.put(status, Long.parseLong(cells[1].trim()));
            }
        }
        return counts;
    }

    void keptEqualsBruteForce(String step) {
        assertThat(kept()).as(step).isEqualTo(bruteForce());
    }

    @Test
    void everyStoreThatChangesAStatusKeepsTheCountsExact() {
        long sent = enqueue("sent", 0);
        long failed = enqueue("failed, then requeued, then sent", 1);
        long expired = enqueue("expired", 2);
        long held = enqueue("held, then cancelled", 3);
        long heldAgain = enqueue("held, then requeued", 4);
        long swept = enqueue("claimed by a server that died", 5);
        long cancelled = enqueue("cancelled while queued", 6);
        long deferred = enqueue("deferred, still queued", 7);
        enqueue("queued", 8);
        mails.sent(sent, at(10), at(10));
        mails.failed(failed, at(11), at(11), Verdict.PERMANENT, 550, "no such user");
        mails.attempt(expired, at(12), at(12), Verdict.EXPIRED, null, "expired", List.of(), InDoubtPolicy.RESEND);
        mails.attempt(held, at(13), at(13), Verdict.IN_DOUBT, null, "no answer", List.of(), InDoubtPolicy.HOLD);
        mails.attempt(heldAgain, at(13), at(13), Verdict.IN_DOUBT, null, "no answer", List.of(), InDoubtPolicy.HOLD);
        mails.failed(deferred, at(14), at(14), Verdict.TRANSIENT, 451, "try later");
        mails.cancel(cancelled, at(15));
        db.inTransaction(() -> SuppressionStore.on(db.tables()).add("blocked@example.com", Suppressed.ALL,
                SuppressionStore.Reason.MANUAL, null, at(16)));
        mails.enqueue(TestMails.to(mail("suppressed at enqueue", 4, at(16)), List.of("blocked@example.com"),
                List.of(), List.of()));
        mails.claim(swept, at(17));
        assertThat(db.inTransaction(() -> db.claimStore().recover(MailStates.SERVER, at(200), InDoubtPolicy.HOLD)))
                .as("the dead server's mail taken back").isEqualTo(1);
        assertThat(mails.status(swept)).isEqualTo(MailStatus.HELD);
        keptEqualsBruteForce("after outcomes, an enqueue, a cancel and a sweep");
        assertThat(kept()).containsEntry(MailStatus.SENT, 1L).containsEntry(MailStatus.FAILED, 1L)
                .containsEntry(MailStatus.EXPIRED, 1L).containsEntry(MailStatus.HELD, 3L)
                .containsEntry(MailStatus.CANCELLED, 1L).containsEntry(MailStatus.SUPPRESSED, 1L);

        mails.requeue(failed, at(20));
        mails.requeue(heldAgain, at(20));
        mails.cancel(held, at(21));
        keptEqualsBruteForce("after two requeues and the cancel of a held mail");
        assertThat(kept()).containsEntry(MailStatus.FAILED, 0L).containsEntry(MailStatus.HELD, 1L)
                .containsEntry(MailStatus.CANCELLED, 2L);

        mails.sent(failed, at(30), at(30));
        keptEqualsBruteForce("after the requeued mail was sent");
        assertThat(kept()).containsEntry(MailStatus.SENT, 2L);

        OperatorStore operator = db.operatorStore();
        assertThat(db.inTransaction(() -> operator.delete(List.of(sent, held, deferred)))).isEqualTo(3);
        keptEqualsBruteForce("after the operator deleted a sent, a cancelled and a queued mail");
        assertThat(kept()).containsEntry(MailStatus.SENT, 1L).containsEntry(MailStatus.CANCELLED, 1L);

        List<Long> due = db.inTransaction(() -> operator.finishedBefore(at(60 * 24), 0, 100));
        assertThat(db.inTransaction(() -> operator.deleteFinished(due, at(60 * 24)))).isEqualTo(due.size())
                .as("every finished mail but the held one").isEqualTo(4);
        keptEqualsBruteForce("after the retention delete");
        assertThat(kept()).containsEntry(MailStatus.HELD, 1L).containsEntry(MailStatus.SENT, 0L)
                .containsEntry(MailStatus.CANCELLED, 0L).containsEntry(MailStatus.SUPPRESSED, 0L);
    }

    /**
     * The operator's requeue holds its transaction open while another operator cancels the same held mail. The
     * cancel waits for the requeue's row lock and then reads what it wrote: the mail is cancelled from QUEUED, and
     * HELD loses it once. Without the lock, on PostgreSQL the cancel would read HELD too, and HELD would lose it twice.
     */
    @Test
    void aRequeueAndACancelOfOneHeldMailAtOnceCountItOnce() throws Exception {
        long held = enqueue("held", 0);
        mails.attempt(held, at(1), at(1), Verdict.IN_DOUBT, null, "no answer", List.of(), InDoubtPolicy.HOLD);
        OperatorStore operator = db.operatorStore();
        CountDownLatch requeued = new CountDownLatch(1);
        CountDownLatch cancelling = new CountDownLatch(1);

        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> db.inTransaction(() -> {
            int n = operator.requeue(List.of(held), at(2), 3, null, MailStates.SERVER, "operator:one");
            requeued.countDown();
            cancelling.await(10, TimeUnit.SECONDS);
            Thread.sleep(500); // the cancel is now waiting, or has read the mail's status
            return n;
        }));
        assertThat(requeued.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> {
            cancelling.countDown();
            return db.inTransaction(() -> operator.cancel(List.of(held), MailLifecycle.CANCELLABLE, MailStates.SERVER,
                    "operator:two"));
        });

        assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(second.get(20, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(mails.status(held)).as("cancelled after the requeue").isEqualTo(MailStatus.CANCELLED);
        keptEqualsBruteForce("after both");
        assertThat(kept()).containsEntry(MailStatus.HELD, 0L).containsEntry(MailStatus.CANCELLED, 1L);
    }

    /** The comparison can fail: a status row written behind the stores' back is seen by the brute force only. */
    @Test
    void aStatusRowWrittenBehindTheStoresBackShowsAsADifference() {
        long sent = enqueue("sent", 0);
        mails.sent(sent, at(1), at(1));
        keptEqualsBruteForce("before");
        insertStatusRow(sent, MailStatus.FAILED, at(2));

        assertThat(kept()).as("the stores' counts").containsEntry(MailStatus.SENT, 1L).containsEntry(MailStatus.FAILED, 0L);
        assertThat(bruteForce()).as("the log").containsEntry(MailStatus.SENT, 0L).containsEntry(MailStatus.FAILED, 1L);
    }

    /** Writes a log row by hand, as an operator's script might. */
    static void insertStatusRow(long mailId, MailStatus status, Instant at) {
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER,"
                + " OUTCOME, MAIL_STATUS) VALUES (" + AttemptLog.nextId(DatabaseKind.valueOf(
                QueueDatabase.KIND.toUpperCase(Locale.ROOT))) + ", ?, ?, ?, 'host/server', 'script', 'STATE', ?)",
                mailId, Timestamp.from(at), Timestamp.from(at), status.name());
    }
}
