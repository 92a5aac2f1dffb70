package dev.mailqueue.admin.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.QueueStatistics;
import dev.mailqueue.queue.entity.Utc;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.queue.control.Suppressed;
import dev.mailqueue.queue.control.SuppressionStore;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The queue's numbers on the real schema, read through the real persistence unit: counts per status from the
 * queue's rows and the mails' logs, throughput per hour from the log rows that recorded SENT or FAILED (history: a
 * mail requeued since still failed in its hour), the oldest queued mail, the top failure reasons, the numbers per
 * account and the attempts in doubt. The mails get their history through the stores.
 */
@Tag("database")
class StatisticsReaderTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    MailStates mails = new MailStates(db);

    static Instant at(String hhmmss) {
        return Instant.parse("2030-03-14T" + hhmmss + "Z");
    }

    long enqueue(String subject, String created, String account) {
        return mails.enqueue(TestMails.account(mail(subject, 4, at(created)), account));
    }

    /** A mail in every status, around {@link #NOW}, in the order of time. */
    void aMailInEveryStatus() {
        enqueue("queued since 08:00", "08:00:00", "mailqueue");
        long sending = enqueue("being sent since 09:20", "08:30:00", "mailqueue");
        long sent = enqueue("sent 09:10", "08:40:00", "mailqueue");
        long failed = enqueue("failed 08:45", "08:41:00", "mailqueue");
        long failedLater = enqueue("failed 09:05", "08:42:00", "mailqueue");
        long requeued = enqueue("failed 08:50, requeued 09:00", "08:43:00", "mailqueue");
        long cancelled = enqueue("cancelled", "08:44:00", "mailqueue");
        long expired = enqueue("expired 09:01", "08:46:00", "mailqueue");
        long held = enqueue("held 09:02", "08:47:00", "mailqueue");
        mails.failed(failed, at("08:45:00"), at("08:45:01"), Verdict.PERMANENT, 550, "no such user");
        mails.failed(requeued, at("08:50:00"), at("08:50:01"), Verdict.PERMANENT, 554, "blocked");
        mails.cancel(cancelled, at("08:55:00"));
        enqueue("queued for backup 09:00", "09:00:00", "backup");
        mails.requeue(requeued, at("09:00:00"));
        mails.attempt(expired, at("09:01:00"), at("09:01:00"), Verdict.EXPIRED, null, "expired", List.of(),
                InDoubtPolicy.RESEND);
        mails.attempt(held, at("09:02:00"), at("09:02:30"), Verdict.IN_DOUBT, null, "no answer", List.of(),
                InDoubtPolicy.HOLD);
        db.inTransaction(() -> SuppressionStore.on(db.tables()).add("blocked@example.com", Suppressed.ALL,
                SuppressionStore.Reason.MANUAL, null, at("09:03:00")));
        mails.enqueue(TestMails.to(mail("suppressed at enqueue", 4, at("09:03:30")), List.of("blocked@example.com"),
                List.of(), List.of()));
        mails.failed(failedLater, at("09:05:00"), at("09:05:01"), Verdict.PERMANENT, 550, "no such user");
        mails.sent(sent, at("09:10:00"), at("09:10:02"));
        mails.claim(sending, at("09:20:00"));
    }

    @Test
    void countsPerStatusComeFromTheQueueAndTheLatestStatusOfEachFinishedMailsLog() {
        aMailInEveryStatus();

        Map<MailStatus, Long> counts = db.jpa(StatisticsReader::countsByStatus);

        assertThat(counts).containsExactly(Map.entry(MailStatus.QUEUED, 3L), Map.entry(MailStatus.SENDING, 1L),
                Map.entry(MailStatus.SENT, 1L), Map.entry(MailStatus.FAILED, 2L), Map.entry(MailStatus.CANCELLED, 1L),
                Map.entry(MailStatus.EXPIRED, 1L), Map.entry(MailStatus.HELD, 1L), Map.entry(MailStatus.SUPPRESSED, 1L));
        assertThat(counts.values().stream().mapToLong(Long::longValue).sum()).as("every mail once")
                .isEqualTo(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE"));
        assertThat(db.jpa(em -> em.createQuery("SELECT s.status, COUNT(s) FROM MailState s GROUP BY s.status",
                Object[].class).getResultList()).stream().collect(java.util.stream.Collectors.toMap(
                r -> (MailStatus) r[0], r -> ((Number) r[1]).longValue()))).as("as the view MAIL_STATE says")
                .isEqualTo(Map.copyOf(counts));
    }

    @Test
    void throughputIsTheHistoryOfTheLogAndTheRestIsReadFromTheQueueAndTheLog() {
        aMailInEveryStatus();

        QueueStatistics stats = db.jpa(em -> StatisticsReader.read(em, Utc.of(NOW)));

        assertThat(stats.getHours()).hasSize(StatisticsReader.HOURS);
        assertThat(stats.getHours()).filteredOn(h -> h.getSent() + h.getFailed() > 0)
                .extracting(QueueStatistics.Hour::getStart, QueueStatistics.Hour::getSent, QueueStatistics.Hour::getFailed)
                .as("the mail requeued since failed in its hour all the same")
                .containsExactly(tuple(at("08:00:00"), 0L, 2L), tuple(at("09:00:00"), 1L, 1L));
        assertThat(stats.getOldestQueuedSeconds()).as("since 08:00:00").isEqualTo(3600 + 26 * 60 + 53);
        assertThat(stats.getTopFailureReasons()).extracting(QueueStatistics.Reason::getReason,
                QueueStatistics.Reason::getCount).containsExactly(tuple("no such user", 2L), tuple("blocked", 1L));
        assertThat(stats.getAccounts()).extracting(QueueStatistics.Account::getAccount,
                        QueueStatistics.Account::getQueued, QueueStatistics.Account::getSentLast24h,
                        QueueStatistics.Account::getFailedLast24h)
                .as("queued by routed account; attempts that sent or failed, not expiries or doubts")
                .containsExactly(tuple("backup", 1L, 0L, 0L), tuple("mailqueue", 2L, 1L, 3L));
        assertThat(stats.getInDoubtLast24h()).isEqualTo(1);
        assertThat(stats.getCountsByStatus()).containsEntry("SENDING", 1L).containsEntry("HELD", 1L);
    }

    @Test
    void theQueuesLagRunsFromWhenTheLongestDueMailBecameDueAndMailScheduledForLaterIsNotLate() {
        mails.enqueue(TestMails.due(mail("enqueued at 06:00, due 09:00", 4, at("06:00:00")), at("09:00:00")));
        mails.enqueue(TestMails.due(mail("enqueued at 05:00, due tomorrow", 9, at("05:00:00")),
                NOW.plusSeconds(86_400)));

        assertThat(db.jpa(em -> StatisticsReader.read(em, Utc.of(NOW))).getOldestQueuedSeconds())
                .as("since 09:00:00, not 06:00:00; the mail due tomorrow is not late").isEqualTo(26 * 60 + 53);
        assertThat(db.jpa(em -> StatisticsReader.read(em, Utc.of(at("08:59:59")))).getOldestQueuedSeconds())
                .as("at 08:59:59 no queued mail is due").isNull();
    }

    @Test
    void anEmptyQueueHasNoOldestMailAndTheDefaultAccountWithNothing() {
        QueueStatistics stats = db.jpa(em -> StatisticsReader.read(em, Utc.of(NOW)));

        assertThat(stats.getOldestQueuedSeconds()).isNull();
        assertThat(stats.getCountsByStatus().values()).containsOnly(0L);
        assertThat(stats.getAccounts()).extracting(QueueStatistics.Account::getAccount)
                .containsExactly(StatisticsReader.DEFAULT_ACCOUNT);
    }
}
