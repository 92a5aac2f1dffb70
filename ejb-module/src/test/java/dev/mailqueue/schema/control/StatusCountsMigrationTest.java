package dev.mailqueue.schema.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.control.StatusCounts;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * V17 (the counts per status) on a database at V16 that holds mail in every status, some with more than one status
 * row in their log (failed, requeued, failed again; requeued and waiting): the seed counts each mail out of the queue
 * once, by the latest status its log records, and the queue then drains on the new code with the counts exact.
 */
@Tag("database")
class StatusCountsMigrationTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    QueueDatabase db;
    MailStates mails;

    @BeforeEach
    void atVersion16() {
        db = QueueDatabase.createAt("16");
        mails = new MailStates(db);
    }

    @AfterEach
    void close() {
        db.close();
    }

    /** A log row that sets {@code status}, as the V16 stores wrote it; a finished status also leaves the queue. */
    void status(long id, MailStatus status, int minute) {
        if (!MailStatus.QUEUED.equals(status)) {
            db.update("DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ?", id);
        }
        Timestamp at = Timestamp.from(NOW.plusSeconds(60L * minute));
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " MAIL_STATUS) VALUES (" + nextId() + ", ?, ?, ?, 'host/old', 'V16', 'STATE', ?)", id, at, at,
                status.name());
    }

    /** Back into the queue, as the V16 requeue put it there. */
    void requeue(long id) {
        db.update("INSERT INTO MAIL_QUEUE (MAIL_ID, PRIORITY, CREATED_AT, DUE_AT, ATTEMPTS_LEFT, SMTP_ACCOUNT, CAMPAIGN,"
                + " SETTLED) SELECT ID, PRIORITY, CREATED_AT, CREATED_AT, 3, SMTP_ACCOUNT, CAMPAIGN, 0 FROM MAIL_MESSAGE"
                + " WHERE ID = ?", id);
    }

    static String nextId() {
        return DatabaseKind.valueOf(QueueDatabase.KIND.toUpperCase(Locale.ROOT)) == DatabaseKind.POSTGRESQL
                ? "nextval('mail_log_seq')" : "NEXT VALUE FOR MAIL_LOG_SEQ";
    }

    long enqueue(String subject) {
        return mails.enqueue(mail(subject, 4, NOW));
    }

    Map<MailStatus, Long> kept() {
        return db.keptCounts();
    }

    /** Mails out of the queue per status, as the view MAIL_STATE says (its own query, not the counts'). */
    Map<MailStatus, Long> byTheView() {
        Map<MailStatus, Long> counts = new EnumMap<>(MailStatus.class);
        StatusCounts.COUNTED.forEach(status -> counts.put(status, 0L));
        for (String row : db.rows("SELECT STATUS, COUNT(*) FROM MAIL_STATE GROUP BY STATUS")) {
            MailStatus status = MailStatus.valueOf(row.split("/")[0]);
            if (counts.containsKey(status)) {
                counts.put(status, Long.parseLong(row.split("/")[1]));
            }
        }
        return counts;
    }

    @Test
    void theSeedCountsEachMailOnceByItsLatestStatusAndTheQueueDrainsWithTheCountsExact() {
        enqueue("queued");
        long sent = enqueue("sent");
        status(sent, MailStatus.SENT, 1);
        long failedTwice = enqueue("failed, requeued, failed again");
        status(failedTwice, MailStatus.FAILED, 1);
        requeue(failedTwice);
        status(failedTwice, MailStatus.QUEUED, 2);
        status(failedTwice, MailStatus.FAILED, 3);
        long requeued = enqueue("failed, requeued, waiting");
        status(requeued, MailStatus.FAILED, 1);
        requeue(requeued);
        status(requeued, MailStatus.QUEUED, 2);
        for (MailStatus other : new MailStatus[]{MailStatus.CANCELLED, MailStatus.EXPIRED, MailStatus.HELD,
                MailStatus.SUPPRESSED}) {
            status(enqueue(other.name().toLowerCase(Locale.ROOT)), other, 1);
        }
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE")).isEqualTo(8);

        db.migrate();

        assertThat(kept()).as("seeded from the log").isEqualTo(byTheView())
                .containsEntry(MailStatus.SENT, 1L).containsEntry(MailStatus.FAILED, 1L)
                .containsEntry(MailStatus.CANCELLED, 1L).containsEntry(MailStatus.EXPIRED, 1L)
                .containsEntry(MailStatus.HELD, 1L).containsEntry(MailStatus.SUPPRESSED, 1L);

        for (long id : db.rows("SELECT MAIL_ID FROM MAIL_QUEUE").stream().map(Long::valueOf).toList()) {
            mails.sent(id, NOW.plusSeconds(600), NOW.plusSeconds(601));
        }
        mails.requeue(failedTwice, NOW.plusSeconds(700));
        mails.failed(failedTwice, NOW.plusSeconds(800), NOW.plusSeconds(801), Verdict.PERMANENT, 550, "no such user");

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE")).as("drained").isZero();
        assertThat(kept()).as("after the drain").isEqualTo(byTheView())
                .containsEntry(MailStatus.SENT, 3L).containsEntry(MailStatus.FAILED, 1L);
        assertThat(kept().values().stream().mapToLong(Long::longValue).sum()).as("every mail once").isEqualTo(8);
    }
}
