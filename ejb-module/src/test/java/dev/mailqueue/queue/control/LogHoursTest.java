package dev.mailqueue.queue.control;

import dev.mailqueue.queue.entity.Utc;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log counted per clock hour (V18's MAIL_LOG_HOUR), on the real schema: what it answers for every hour is what
 * the log says when counted by hand; an hour that has ended is counted once and then read from its count; two
 * readers at once count it once. The mails get their logs through the stores.
 */
@Tag("database")
class LogHoursTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    /** The hours read, as the statistics read them: the current one and the 23 before it. */
    static final int HOURS = 24;

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    MailStates mails = new MailStates(db);

    static LocalDateTime first(Instant now) {
        return Utc.of(now).truncatedTo(ChronoUnit.HOURS).minusHours(HOURS - 1L);
    }

    /**
     * One mail an hour for the 30 hours up to {@link #NOW}, through two accounts: sent, failed for good, deferred, left
     * in doubt (held) in turn, and a bounce report for the last one sent.
     */
    void thirtyHoursOfMail() {
        long lastSent = 0;
        for (int h = 29; h >= 0; h--) {
            Instant at = NOW.minus(Duration.ofHours(h)).minusSeconds(60);
            long id = mails.enqueue(TestMails.account(mail("hour -" + h, 4, at.minusSeconds(60)),
                    (h / 4) % 2 == 0 ? "mailqueue" : "backup"));
            switch (h % 4) {
                case 0 -> {
                    mails.sent(id, at, at.plusSeconds(1));
                    lastSent = id;
                }
                case 1 -> mails.failed(id, at, at.plusSeconds(1), Verdict.PERMANENT, 550, "no such user");
                case 2 -> mails.failed(id, at, at.plusSeconds(1), Verdict.TRANSIENT, 451, "try again later");
                default -> mails.attempt(id, at, at.plusSeconds(1), Verdict.IN_DOUBT, null, "no answer", List.of(),
                        InDoubtPolicy.HOLD);
            }
        }
        mails.bounce(db.text("SELECT MESSAGE_ID FROM MAIL_MESSAGE WHERE ID = ?", lastSent),
                db.text("SELECT TO_ADDRESSES FROM MAIL_MESSAGE WHERE ID = ?", lastSent).split(",")[0],
                NOW.minusSeconds(30));
    }

    /** @return the entries of each hour from {@code first(now)} to now's, by hour/status/outcome/account */
    static Map<String, Long> read(Instant now) {
        return byKey(db.jpa(em -> LogHours.read(em, first(now), Utc.of(now))));
    }

    static Map<String, Long> byKey(List<LogHours.Entry> entries) {
        Map<String, Long> byKey = new TreeMap<>();
        for (LogHours.Entry e : entries) {
            byKey.merge(e.hour().toString().substring(0, 13).replace('T', ' ') + "/" + e.mailStatus() + "/"
                    + e.outcome() + "/" + e.account(), e.entries(), Long::sum);
        }
        return byKey;
    }

    /** @return the log's rows counted by hand, by the same key, those of the hours {@link #read} covers */
    static Map<String, Long> countedByHand(Instant now) {
        String from = first(now).toString().substring(0, 13).replace('T', ' ');
        Map<String, Long> byKey = new TreeMap<>();
        for (String row : db.rows("SELECT FINISHED_AT, MAIL_STATUS, OUTCOME, SMTP_ACCOUNT FROM MAIL_ATTEMPT")) {
            String hour = row.substring(0, 13);
            if (hour.compareTo(from) >= 0) {
                byKey.merge(hour + row.substring(row.indexOf('/')), 1L, Long::sum);
            }
        }
        return byKey;
    }

    @Test
    void everyHourIsWhatTheLogSaysCountedByHandAndTheEndedOnesAreKept() {
        thirtyHoursOfMail();

        assertThat(read(NOW)).as("hours counted now, and the current one from the log").isEqualTo(countedByHand(NOW))
                .containsKeys("2030-03-14 09/SENT/SENT/mailqueue", "2030-03-14 08/FAILED/FAILED/mailqueue",
                        "2030-03-14 03/QUEUED/FAILED/backup")
                .hasKeySatisfying(new org.assertj.core.api.Condition<>(k -> k.startsWith("2030-03-14 09/null/BOUNCED/"),
                        "the bounce report's row"));
        assertThat(db.text("SELECT COUNTED_UNTIL FROM MAIL_LOG_HOUR_MARK")).startsWith("2030-03-14 09:00:00");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_LOG_HOUR WHERE HOUR_START < ?",
                java.sql.Timestamp.valueOf(first(NOW)))).as("no hour older than those asked for").isZero();
        assertThat(db.number("SELECT COUNT(DISTINCT HOUR_START) FROM MAIL_LOG_HOUR")).as("every ended hour of the 24")
                .isEqualTo(HOURS - 1L);

        Instant later = NOW.plus(Duration.ofHours(3));
        assertThat(read(later)).as("three more hours counted, three dropped").isEqualTo(countedByHand(later));
        assertThat(db.text("SELECT COUNTED_UNTIL FROM MAIL_LOG_HOUR_MARK")).startsWith("2030-03-14 12:00:00");
    }

    @Test
    void anHourEndedIsCountedOnceThenReadFromItsCountAndTheLastMinutesWait() {
        thirtyHoursOfMail();
        Instant justAfterTen = Instant.parse("2030-03-14T10:03:00Z");
        read(justAfterTen);
        assertThat(db.text("SELECT COUNTED_UNTIL FROM MAIL_LOG_HOUR_MARK")).as("09:00 to 10:00 ended 3 minutes ago: "
                + "not yet, its last transactions may still commit").startsWith("2030-03-14 09:00:00");

        // A mail sent at 08:30 whose log row commits now, long after its hour was counted.
        long late = mails.enqueue(TestMails.to(mail("late", 9, Instant.parse("2030-03-14T08:29:00Z")),
                List.of("late@example.net"), List.of(), List.of())); // first in line, to no suppressed address
        mails.sent(late, Instant.parse("2030-03-14T08:29:59Z"), Instant.parse("2030-03-14T08:30:00Z"));
        Map<String, Long> byHand = countedByHand(justAfterTen);

        Map<String, Long> kept = read(justAfterTen);
        // (The claim at 08:29:59 also settled a mail to the bounced address as SUPPRESSED: a late row too.)
        assertThat(byHand.keySet()).as("08:00 is read from its count, which was taken before the late rows: the "
                        + "figures that differ from the log's").filteredOn(k -> !byHand.get(k).equals(kept.get(k)))
                .isNotEmpty().allMatch(k -> k.startsWith("2030-03-14 08/"))
                .anyMatch(k -> k.startsWith("2030-03-14 08/SENT/SENT/"));

        db.update("DELETE FROM MAIL_LOG_HOUR");
        db.update("UPDATE MAIL_LOG_HOUR_MARK SET COUNTED_UNTIL = '1970-01-01 00:00:00'");
        assertThat(read(justAfterTen)).as("negative control: counted again, the hour has the late row")
                .isEqualTo(byHand);
    }

    @Test
    void twoReadersAtOnceCountEachHourOnce() throws Exception {
        thirtyHoursOfMail();
        CountDownLatch counted = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        CompletableFuture<Map<String, Long>> first = CompletableFuture.supplyAsync(() -> byKey(db.jpa(em -> {
            List<LogHours.Entry> entries = LogHours.read(em, first(NOW), Utc.of(NOW));
            counted.countDown();
            try {
                commit.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return entries;
        })));
        assertThat(counted.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Map<String, Long>> second = CompletableFuture.supplyAsync(() -> read(NOW));
        Thread.sleep(1_000);
        assertThat(second).as("the second reader waits for the first's lock on the mark").isNotDone();
        commit.countDown();

        Map<String, Long> byHand = countedByHand(NOW);
        assertThat(first.get(60, TimeUnit.SECONDS)).isEqualTo(byHand);
        assertThat(second.get(60, TimeUnit.SECONDS)).as("read from the first's counts, none twice").isEqualTo(byHand);
    }
}
