package dev.mailqueue.schema.control;

import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimStore;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.OutcomeStore;
import dev.mailqueue.settings.control.RetryPolicy;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * V13 (the lean store) on a database at V12 that holds mail in every status, events published and not, and a
 * webhook delivery still to be retried, on the real DDL of the database under test: every mail keeps its
 * status, queued and leased mail moves into MAIL_QUEUE (a leased mail under an expired claimer of its old owner,
 * the one whose send had begun first in its send order), finished mail gets the log row that records its status,
 * and old events become log rows that only the unpublished ones leave for the publishers.
 */
@Tag("database")
class LeanStoreMigrationTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    QueueDatabase db;

    /** Old status of each mail, by id. */
    final Map<Long, String> statuses = new LinkedHashMap<>();

    @BeforeEach
    void atVersion12() {
        db = QueueDatabase.createAt("postgresql".equals(QueueDatabase.KIND) ? "12" : "11"); // V12 is PostgreSQL's only
    }

    @AfterEach
    void close() {
        db.close();
    }

    /** A mail as V12 stored it; the state columns as given. */
    void oldMail(long id, String status, String leaseOwner, Instant sendStartedAt, Instant lastAttemptAt, Instant sentAt,
                 String lastError) {
        db.update("INSERT INTO MAIL_MESSAGE (ID, MESSAGE_ID, STATUS, PRIORITY, CREATED_AT, NOT_BEFORE,"
                        + " ATTEMPTS_REMAINING, LEASE_OWNER, LEASE_EXPIRES_AT, LAST_ATTEMPT_AT, SENT_AT, FROM_ADDRESS,"
                        + " TO_ADDRESSES, SUBJECT, TEXT_BODY, LAST_ERROR, SEND_STARTED_AT, SMTP_ACCOUNT, CLAIMED_AT, CAMPAIGN)"
                        + " VALUES (?, ?, ?, 5, ?, ?, 3, ?, ?, ?, ?, 'a@example.org', 'b@example.org', ?, 'hello', ?, ?,"
                        + " 'mailqueue', ?, 'spring')",
                id, "<" + id + "@example.org>", status, ts(NOW.minusSeconds(3600 - id)), ts(NOW.minusSeconds(60)),
                leaseOwner, leaseOwner == null ? null : ts(NOW.minusSeconds(10)), ts(lastAttemptAt), ts(sentAt),
                "mail " + id, lastError, ts(sendStartedAt), leaseOwner == null ? null : ts(NOW.minusSeconds(20)));
        statuses.put(id, status);
    }

    static Timestamp ts(Instant at) {
        return at == null ? null : Timestamp.from(at);
    }

    void oldMailInEveryStatus() {
        oldMail(1, "QUEUED", null, null, null, null, null);
        oldMail(2, "QUEUED", null, null, NOW.minusSeconds(120), null, "451 try later");
        oldMail(3, "SENDING", "host/old#7", NOW.minusSeconds(5), null, null, null);
        oldMail(4, "SENDING", "host/old#7", null, null, null, null);
        oldMail(5, "SENDING", "host/old#8", null, null, null, null);
        oldMail(6, "SENT", null, null, NOW.minusSeconds(300), NOW.minusSeconds(299), null);
        oldMail(7, "FAILED", null, null, NOW.minusSeconds(400), null, "550 no such user");
        oldMail(8, "CANCELLED", null, null, null, null, null);
        oldMail(9, "EXPIRED", null, null, null, null, "expired");
        oldMail(10, "HELD", null, null, NOW.minusSeconds(500), null, "in doubt");
        oldMail(11, "SUPPRESSED", null, null, null, null, null);
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " SMTP_REPLY_CODE) VALUES (100, 6, ?, ?, 'host/old', 'host/old#1', 'SENT', 250)", ts(NOW.minusSeconds(300)),
                ts(NOW.minusSeconds(299)));
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " SMTP_REPLY_CODE) VALUES (150, 7, ?, ?, 'host/old', 'host/old#1', 'FAILED', 550)", ts(NOW.minusSeconds(400)),
                ts(NOW.minusSeconds(399)));
        db.update("INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, UPDATED_AT) VALUES (2, 'c@example.org', 'REFUSED', ?)",
                ts(NOW.minusSeconds(120)));
        db.update("INSERT INTO WEBHOOK_ENDPOINT (NAME) VALUES ('crm')");
        db.update("INSERT INTO MAIL_EVENT (MAIL_ID, EVENT_TYPE, OCCURRED_AT, DETAIL, PUBLISHED) VALUES (6, 'SENT', ?, '250 ok', 1)",
                ts(NOW.minusSeconds(299)));
        db.update("INSERT INTO MAIL_EVENT (MAIL_ID, EVENT_TYPE, OCCURRED_AT, DETAIL, PUBLISHED) VALUES (7, 'FAILED', ?, '550', 0)",
                ts(NOW.minusSeconds(399)));
        db.update("INSERT INTO MAIL_EVENT (MAIL_ID, EVENT_TYPE, OCCURRED_AT, RECIPIENT, DETAIL, PUBLISHED)"
                + " VALUES (NULL, 'UNSUBSCRIBED', ?, 'r@example.org', 'news', 1)", ts(NOW.minusSeconds(50)));
        long published = db.number("SELECT MIN(ID) FROM MAIL_EVENT");
        db.update("INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, MAIL_ID, STATUS, ATTEMPTS, CREATED_AT, NEXT_ATTEMPT_AT)"
                + " VALUES ('crm', ?, 6, 'PENDING', 2, ?, ?)", published, ts(NOW.minusSeconds(299)), ts(NOW));
    }

    @Test
    void everyMailKeepsItsStatusAndLiveMailMovesIntoTheQueue() {
        oldMailInEveryStatus();

        db.migrate();

        statuses.forEach((id, status) -> assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id))
                .as("mail %d", id).isEqualTo(id == 4 || id == 5 ? "QUEUED" : status));
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE")).as("queued and leased mail").isEqualTo(5);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER IS NULL")).as("queued, and leased but never begun")
                .isEqualTo(4);
        assertThat(db.number("SELECT SETTLED FROM MAIL_QUEUE WHERE MAIL_ID = 2")).as("tried before: recipients to read")
                .isEqualTo(1);
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_STATE WHERE MAIL_ID = 2")).isEqualTo("451 try later");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_CLAIMER")).as("one per old owner with a send begun").isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_CLAIMER WHERE EXPIRES_AT > ?", ts(NOW.minusSeconds(86_400 * 365L))))
                .as("all expired").isZero();
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = 3")).as("its send had begun: held, for the sweep")
                .isEqualTo("SENDING");
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = 4")).as("never begun: free again").isEqualTo("QUEUED");
        assertThat(db.number("SELECT ATTEMPTS_LEFT FROM MAIL_QUEUE WHERE MAIL_ID = 1")).isEqualTo(3);
        assertThat(db.text("SELECT SMTP_ACCOUNT FROM MAIL_QUEUE WHERE MAIL_ID = 1")).isEqualTo("mailqueue");
        assertThat(db.text("SELECT CAMPAIGN FROM MAIL_QUEUE WHERE MAIL_ID = 1")).isEqualTo("spring");

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE OUTCOME = 'STATE'")).as("one per finished or held mail")
                .isEqualTo(6);
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_STATE WHERE MAIL_ID = 7")).isEqualTo("550 no such user");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_STATE WHERE SENT_AT IS NOT NULL")).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE OUTCOME = 'NOTED'")).as("the old events").isEqualTo(3);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE OUTCOME = 'NOTED' AND MAIL_ID IS NULL")).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = 2 AND ATTEMPT_ID = 0")).isEqualTo(1);
        long noted = db.number("SELECT ID FROM MAIL_ATTEMPT WHERE OUTCOME = 'NOTED' AND MAIL_ID = 6");
        assertThat(db.number("SELECT EVENT_ID FROM WEBHOOK_DELIVERY WHERE ENDPOINT = 'crm'")).as("the delivery follows its event")
                .isEqualTo(noted * 128 + 127);
        assertThat(db.number("SELECT COUNT(*) FROM EVENT_CURSOR")).as("the endpoint and the topic").isEqualTo(2);
    }

    /**
     * The migrated queue drains on the new code with nothing lost or sent twice: the first sweep takes back the old
     * owners' leased mail (the one whose send had begun in doubt: sent again, flagged IN_DOUBT; the others as they
     * were), every queued or leased mail is claimed exactly once and sent, and finished mail is never claimed.
     */
    @Test
    void theMigratedQueueDrainsWithNothingLostOrSentTwice() {
        oldMailInEveryStatus();
        db.migrate();
        ClaimStore claims = db.claimStore();
        OutcomeStore outcomes = db.outcomeStore();
        Instant later = NOW.plusSeconds(3600);
        Lease lease = db.inTransaction(() -> claims.start("host/new#1", later, later.plusSeconds(60)));

        List<Long> sent = new ArrayList<>();
        int takenBack = 0;
        for (int round = 1; round <= 5; round++) {
            int claimNo = round;
            ClaimStore.Claim claim = db.inTransaction(() -> claims.claim(lease, claimNo, "host/new", later, later.plusSeconds(60), 10,
                    InDoubtPolicy.RESEND, TestMails.ACCOUNTS, true));
            takenBack += claim.takenBack();
            List<Change> changes = new ArrayList<>();
            for (ClaimedMail mail : claim.mails()) {
                sent.add(mail.id());
                changes.add(new Change.Attempted(new AttemptResult(mail.id(), lease, "host/new", "mailqueue",
                        mail.attemptsRemaining(), mail.expiresAt(), later, later, Verdict.SENT, 250, "250 ok", null, null,
                        List.of())));
            }
            db.inTransaction(() -> {
                outcomes.apply(changes, new RetryPolicy(300_000, 4_000_000, 0.25, 5), InDoubtPolicy.RESEND, false);
                return null;
            });
        }

        assertThat(takenBack).as("the one leased mail whose send had begun").isEqualTo(1);
        assertThat(sent).as("every live mail once, no finished one").containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE")).isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = 3 AND OUTCOME = 'IN_DOUBT'"))
                .as("the mail whose send had begun is flagged").isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE OUTCOME = 'IN_DOUBT'")).as("only that one").isEqualTo(1);
        for (long id = 1; id <= 5; id++) {
            assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id)).as("mail %d", id).isEqualTo("SENT");
        }
        statuses.forEach((id, status) -> {
            if (id > 5) {
                assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id)).as("finished mail %d untouched", id)
                        .isEqualTo(status);
            }
        });
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_CLAIMER WHERE OWNER LIKE 'host/old%'")).as("old leases gone").isZero();
    }
}
