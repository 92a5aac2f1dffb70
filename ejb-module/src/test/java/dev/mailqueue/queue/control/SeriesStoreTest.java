package dev.mailqueue.queue.control;

import dev.mailqueue.api.SeriesBucket;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The console's chart data on the real schema: buckets of a minute (or an hour) ending with the one that
 * holds now; attempts counted by how they ended (sent, failed for good, deferred); and the queue's depth
 * at each bucket's end, from mails that began to wait and ended in the range and the depth now. The mails get
 * their history through the stores (enqueue, claim, outcome, cancel, requeue), as the queue writes it.
 */
@Tag("database")
class SeriesStoreTest {

    /** The last bucket of an hour is 09:26 to 09:27; the first 08:27. */
    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    SeriesStore cut = SeriesStore.on(db.tables());

    MailStates mails = new MailStates(db);

    static Instant at(String hhmmss) {
        return Instant.parse("2030-03-14T" + hhmmss + "Z");
    }

    long enqueue(String subject, Instant createdAt, String account) {
        return mails.enqueue(TestMails.account(mail(subject, 4, createdAt), account));
    }

    /** The mails of the test, by what became of them (see each line), around {@link #NOW}, in the order of time. */
    void aQueueOfAnHour() {
        long expired = enqueue("created 07:00, expired when claimed 09:02", at("07:00:00"), "mailqueue");
        enqueue("waiting since before the range", at("08:00:00"), "mailqueue");
        long held = enqueue("held since before the range", at("08:00:00"), "mailqueue");
        mails.attempt(held, at("08:10:00"), at("08:10:30"), Verdict.IN_DOUBT, null, "no answer to the end of DATA",
                List.of(), InDoubtPolicy.HOLD);
        long failed = enqueue("created 08:50, deferred 09:05, failed 09:20", at("08:50:00"), "mailqueue");
        long sent = enqueue("created 09:00, sent 09:10", at("09:00:30"), "mailqueue");
        long cancelled = enqueue("created 09:01, cancelled 09:15", at("09:01:00"), "mailqueue");
        mails.attempt(expired, at("09:02:00"), at("09:02:00"), Verdict.EXPIRED, null, "expired before it was sent",
                List.of(), InDoubtPolicy.RESEND);
        mails.failed(failed, at("09:05:00"), at("09:05:05"), Verdict.TRANSIENT, 451, "try later");
        mails.sent(sent, at("09:10:00"), at("09:10:10"));
        mails.cancel(cancelled, at("09:15:00"));
        mails.failed(failed, at("09:20:00"), at("09:20:01"), Verdict.PERMANENT, 550, "no such user");
        enqueue("created 09:24 for backup, waiting", at("09:24:00"), "backup");
        db.inTransaction(() -> SuppressionStore.on(db.tables()).add("blocked@example.com", Suppressed.ALL,
                SuppressionStore.Reason.MANUAL, null, at("09:24:30")));
        long suppressed = mails.enqueue(TestMails.to(TestMails.account(
                mail("suppressed at enqueue 09:25: never waited", 4, at("09:25:00")), "mailqueue"),
                List.of("blocked@example.com"), List.of(), List.of()));
        assertThat(List.of(mails.status(expired), mails.status(held), mails.status(failed), mails.status(sent),
                mails.status(cancelled), mails.status(suppressed))).containsExactly(MailStatus.EXPIRED, MailStatus.HELD,
                MailStatus.FAILED, MailStatus.SENT, MailStatus.CANCELLED, MailStatus.SUPPRESSED);
    }

    @Test
    void anHourIsSixtyMinutesEndingWithTheOneThatHoldsNowWithAttemptsAndTheDepthAtEachEnd() {
        aQueueOfAnHour();

        List<SeriesBucket> hour = cut.read(SeriesStore.Range.HOUR, null, false, NOW);

        assertThat(hour).hasSize(60);
        assertThat(hour.get(0).start()).isEqualTo(at("08:27:00"));
        assertThat(hour.get(59).start()).isEqualTo(at("09:26:00"));
        assertThat(hour).filteredOn(b -> b.sent() + b.failed() + b.deferred() > 0)
                .extracting(SeriesBucket::start, SeriesBucket::sent, SeriesBucket::failed,
                        SeriesBucket::deferred)
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
        // as before V5: routed to no account (the queue row copies the mail's)
        db.update("UPDATE MAIL_QUEUE SET SMTP_ACCOUNT = NULL WHERE MAIL_ID = (SELECT ID FROM MAIL_MESSAGE"
                + " WHERE SUBJECT = 'waiting since before the range')");
        db.update("UPDATE MAIL_MESSAGE SET SMTP_ACCOUNT = NULL WHERE SUBJECT = 'waiting since before the range'");

        List<SeriesBucket> backup = cut.read(SeriesStore.Range.HOUR, "backup", false, NOW);
        assertThat(backup).extracting(SeriesBucket::sent).containsOnly(0L);
        assertThat(queuedAt(backup, "09:23:00")).isZero();
        assertThat(queuedAt(backup, "09:24:00")).isEqualTo(1);

        List<SeriesBucket> byDefault = cut.read(SeriesStore.Range.HOUR, "mailqueue", true, NOW);
        assertThat(byDefault).extracting(SeriesBucket::sent).containsOnlyOnce(1L);
        assertThat(queuedAt(byDefault, "09:01:00")).isEqualTo(6);
        assertThat(queuedAt(byDefault, "09:26:00")).isEqualTo(2);
    }

    @Test
    void aWeekIs168HoursAndAMailCreatedAndEndedInOneBucketWasNeverWaitingAtItsEnd() {
        aQueueOfAnHour();

        List<SeriesBucket> week = cut.read(SeriesStore.Range.WEEK, null, false, NOW);

        assertThat(week).hasSize(168);
        assertThat(week.get(167).start()).isEqualTo(at("09:00:00"));
        assertThat(week.get(0).start()).isEqualTo(Instant.parse("2030-03-07T10:00:00Z"));
        assertThat(week.get(167)).extracting(SeriesBucket::sent, SeriesBucket::failed,
                SeriesBucket::deferred, SeriesBucket::queued).containsExactly(1L, 1L, 1L, 3L);
        assertThat(queuedAt(week, "08:00:00")).as("at 09:00: the two old ones, the expiring and the failing one")
                .isEqualTo(4);
        assertThat(queuedAt(week, "06:00:00")).as("before 07:00: nothing").isZero();
    }

    @Test
    void aMailRequeuedAfterItFailedWaitsAgainFromItsRequeueAndItsFailureStaysFailed() {
        long mail = enqueue("created 09:00, failed 09:06, requeued 09:12, sent 09:14", at("09:00:00"), "mailqueue");
        mails.failed(mail, at("09:06:00"), at("09:06:02"), Verdict.PERMANENT, 550, "no such user");
        mails.requeue(mail, at("09:12:00"));
        mails.sent(mail, at("09:14:00"), at("09:14:01"));
        long waiting = enqueue("created 09:03, cancelled 09:04, requeued 09:08, waiting", at("09:03:00"), "mailqueue");
        mails.cancel(waiting, at("09:04:00"));
        mails.requeue(waiting, at("09:08:00"));

        List<SeriesBucket> hour = cut.read(SeriesStore.Range.HOUR, null, false, NOW);

        assertThat(hour).filteredOn(b -> b.sent() + b.failed() + b.deferred() > 0)
                .extracting(SeriesBucket::start, SeriesBucket::sent, SeriesBucket::failed,
                        SeriesBucket::deferred)
                .as("the failure stays a failure of its minute").containsExactly(tuple(at("09:06:00"), 0L, 1L, 0L),
                        tuple(at("09:14:00"), 1L, 0L, 0L));
        assertThat(queuedAt(hour, "08:59:00")).isZero();
        assertThat(queuedAt(hour, "09:00:00")).isEqualTo(1);
        assertThat(queuedAt(hour, "09:03:00")).isEqualTo(2);
        assertThat(queuedAt(hour, "09:04:00")).as("- the cancelled one").isEqualTo(1);
        assertThat(queuedAt(hour, "09:06:00")).as("- the failed one").isZero();
        assertThat(queuedAt(hour, "09:08:00")).as("+ the cancelled one, requeued").isEqualTo(1);
        assertThat(queuedAt(hour, "09:12:00")).as("+ the failed one, requeued").isEqualTo(2);
        assertThat(queuedAt(hour, "09:14:00")).as("- the one sent").isEqualTo(1);
        assertThat(queuedAt(hour, "09:26:00")).as("now").isEqualTo(1);
    }

    static long queuedAt(List<SeriesBucket> buckets, String hhmmss) {
        return buckets.stream().filter(b -> b.start().equals(at(hhmmss))).findFirst().orElseThrow().queued();
    }
}
