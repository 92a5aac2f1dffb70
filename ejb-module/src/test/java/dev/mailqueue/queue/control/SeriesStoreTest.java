package dev.mailqueue.queue.control;

import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The console's chart data on the real schema: buckets of a minute (or an hour) ending with the one that
 * holds now; attempts counted by how they ended (sent, failed for good, deferred); and the queue's depth
 * at each bucket's end, from mails created and ended in the range and the depth now.
 */
class SeriesStoreTest {

    /** The last bucket of an hour is 09:26 to 09:27; the first 08:27. */
    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    static final AtomicLong ATTEMPT_IDS = new AtomicLong(1_000_000);

    SeriesStore cut = SeriesStore.on(db.tables());

    static Instant at(String hhmmss) {
        return Instant.parse("2030-03-14T" + hhmmss + "Z");
    }

    long enqueue(String subject, Instant createdAt, String account) {
        return db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(
                TestMails.account(mail(subject, 4, createdAt), account)))).get(0).get(0).id();
    }

    /** Runs an update whose {@link Instant} parameters are bound as the store binds them (UTC). */
    static void sql(String sql, Object... params) {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] instanceof Instant instant) {
                    SqlTime.set(s, i + 1, instant);
                } else {
                    s.setObject(i + 1, params[i]);
                }
            }
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    static void attempt(long mailId, Instant started, Instant finished, String outcome) {
        sql("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " SMTP_ACCOUNT) VALUES (?, ?, ?, ?, 'host/server', 'host/server#1', ?, 'mailqueue')",
                ATTEMPT_IDS.incrementAndGet(), mailId, started, finished, outcome);
    }

    /** The mails of the test, by what became of them (see each line), around {@link #NOW}. */
    void aQueueOfAnHour() {
        enqueue("waiting since before the range", at("08:00:00"), "mailqueue");
        long held = enqueue("held since before the range", at("08:00:00"), "mailqueue");
        sql("UPDATE MAIL_MESSAGE SET STATUS = 'HELD' WHERE ID = ?", held);
        long sent = enqueue("created 09:00, sent 09:10", at("09:00:30"), "mailqueue");
        attempt(sent, at("09:10:00"), at("09:10:10"), "SENT");
        sql("UPDATE MAIL_MESSAGE SET STATUS = 'SENT', LAST_ATTEMPT_AT = ?, SENT_AT = ? WHERE ID = ?",
                at("09:10:00"), at("09:10:10"), sent);
        long failed = enqueue("created 08:50, deferred 09:05, failed 09:20", at("08:50:00"), "mailqueue");
        attempt(failed, at("09:05:00"), at("09:05:05"), "FAILED");
        attempt(failed, at("09:20:00"), at("09:20:01"), "FAILED");
        sql("UPDATE MAIL_MESSAGE SET STATUS = 'FAILED', LAST_ATTEMPT_AT = ? WHERE ID = ?", at("09:20:00"), failed);
        long cancelled = enqueue("created 09:01, cancelled 09:15", at("09:01:00"), "mailqueue");
        sql("UPDATE MAIL_MESSAGE SET STATUS = 'CANCELLED' WHERE ID = ?", cancelled);
        sql("INSERT INTO MAIL_EVENT (MAIL_ID, EVENT_TYPE, OCCURRED_AT, PUBLISHED) VALUES (?, 'CANCELLED', ?, 1)",
                cancelled, at("09:15:00"));
        long suppressed = enqueue("suppressed at enqueue 09:25: never waited", at("09:25:00"), "mailqueue");
        sql("UPDATE MAIL_MESSAGE SET STATUS = 'SUPPRESSED' WHERE ID = ?", suppressed);
        long expired = enqueue("created 07:00, expired when claimed 09:02", at("07:00:00"), "mailqueue");
        sql("UPDATE MAIL_MESSAGE SET STATUS = 'EXPIRED', CLAIMED_AT = ? WHERE ID = ?", at("09:02:00"), expired);
        enqueue("created 09:24 for backup, waiting", at("09:24:00"), "backup");
    }

    @Test
    void anHourIsSixtyMinutesEndingWithTheOneThatHoldsNowWithAttemptsAndTheDepthAtEachEnd() {
        aQueueOfAnHour();

        List<SeriesStore.Bucket> hour = cut.read(SeriesStore.Range.HOUR, null, false, NOW);

        assertThat(hour).hasSize(60);
        assertThat(hour.get(0).start()).isEqualTo(at("08:27:00"));
        assertThat(hour.get(59).start()).isEqualTo(at("09:26:00"));
        assertThat(hour).filteredOn(b -> b.sent() + b.failed() + b.deferred() > 0)
                .extracting(SeriesStore.Bucket::start, SeriesStore.Bucket::sent, SeriesStore.Bucket::failed,
                        SeriesStore.Bucket::deferred)
                .containsExactly(tuple(at("09:05:00"), 0L, 0L, 1L), tuple(at("09:10:00"), 1L, 0L, 0L),
                        tuple(at("09:20:00"), 0L, 1L, 0L));
        // waiting at each minute's end: before 08:50 the two old ones and the one that expires at 09:02; ...
        assertThat(queuedAt(hour, "08:49:00")).isEqualTo(3);
        assertThat(queuedAt(hour, "08:50:00")).as("+ the one that fails").isEqualTo(4);
        assertThat(queuedAt(hour, "09:00:00")).as("+ the one sent at 09:10").isEqualTo(5);
        assertThat(queuedAt(hour, "09:01:00")).as("+ the one cancelled at 09:15").isEqualTo(6);
        assertThat(queuedAt(hour, "09:02:00")).as("- the expired one").isEqualTo(5);
        assertThat(queuedAt(hour, "09:10:00")).as("- the sent one").isEqualTo(4);
        assertThat(queuedAt(hour, "09:15:00")).as("- the cancelled one").isEqualTo(3);
        assertThat(queuedAt(hour, "09:20:00")).as("- the failed one").isEqualTo(2);
        assertThat(queuedAt(hour, "09:24:00")).as("+ backup's; the suppressed one never waited").isEqualTo(3);
        assertThat(queuedAt(hour, "09:26:00")).as("now").isEqualTo(3);
    }

    @Test
    void anAccountsSeriesCountsItsOwnMailAndTheDefaultAccountAlsoMailRoutedToNone() {
        aQueueOfAnHour();
        sql("UPDATE MAIL_MESSAGE SET SMTP_ACCOUNT = NULL WHERE SUBJECT = 'waiting since before the range'"); // as before V5

        List<SeriesStore.Bucket> backup = cut.read(SeriesStore.Range.HOUR, "backup", false, NOW);
        assertThat(backup).extracting(SeriesStore.Bucket::sent).containsOnly(0L);
        assertThat(queuedAt(backup, "09:23:00")).isZero();
        assertThat(queuedAt(backup, "09:24:00")).isEqualTo(1);

        List<SeriesStore.Bucket> byDefault = cut.read(SeriesStore.Range.HOUR, "mailqueue", true, NOW);
        assertThat(byDefault).extracting(SeriesStore.Bucket::sent).containsOnlyOnce(1L);
        assertThat(queuedAt(byDefault, "09:01:00")).isEqualTo(6);
        assertThat(queuedAt(byDefault, "09:26:00")).isEqualTo(2);
    }

    @Test
    void aWeekIs168HoursAndAMailCreatedAndEndedInOneBucketWasNeverWaitingAtItsEnd() {
        aQueueOfAnHour();

        List<SeriesStore.Bucket> week = cut.read(SeriesStore.Range.WEEK, null, false, NOW);

        assertThat(week).hasSize(168);
        assertThat(week.get(167).start()).isEqualTo(at("09:00:00"));
        assertThat(week.get(0).start()).isEqualTo(Instant.parse("2030-03-07T10:00:00Z"));
        assertThat(week.get(167)).extracting(SeriesStore.Bucket::sent, SeriesStore.Bucket::failed,
                SeriesStore.Bucket::deferred, SeriesStore.Bucket::queued).containsExactly(1L, 1L, 1L, 3L);
        assertThat(queuedAt(week, "08:00:00")).as("at 09:00: the two old ones, the expiring and the failing one")
                .isEqualTo(4);
        assertThat(queuedAt(week, "06:00:00")).as("before 07:00: nothing").isZero();
    }

    static long queuedAt(List<SeriesStore.Bucket> buckets, String hhmmss) {
        return buckets.stream().filter(b -> b.start().equals(at(hhmmss))).findFirst().orElseThrow().queued();
    }
}
