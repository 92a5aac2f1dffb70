package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.LocalDateTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recording attempt outcomes on the real schema, EclipseLink and Derby, after a real claim: what the
 * mail row becomes (sent, queued again later, failed for good) and the attempt log; and that a
 * claimer that lost its lease leaves the row to the new owner but still logs its attempt.
 */
class DeliveryRecorderTest {

    static final LocalDateTime NOW = LocalDateTime.of(2030, 3, 14, 9, 26, 53);
    static final LocalDateTime STARTED = NOW.plusSeconds(1);
    static final LocalDateTime FINISHED = NOW.plusSeconds(2);
    static final long LEASE_MS = 60_000;
    static final RetryPolicy FIVE_MINUTES = new RetryPolicy(300_000, 300_000, 0, 5); // no jitter: exact times
    static final String OWNER = "mail1.example.com/mailqueue#7";
    static final String SERVER = "mail1.example.com/mailqueue";

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();
    DeliveryRecorder cut;

    @BeforeEach
    void newCut() {
        cut = new DeliveryRecorder();
    }

    @Test
    void anAcceptedMailIsSentAndItsAttemptLogged() {
        MailMessage mail = claimed(queuedWithAttempts(5), OWNER, NOW);

        int applied = record(OWNER, new DeliveryOutcome(mail.getId(), 5, STARTED, FINISHED, true,
                new SmtpReply(250, "250 OK id=1abc"), null, "mailqueue"));

        assertThat(applied).isEqualTo(1);
        MailMessage stored = db.reload(mail.getId());
        assertThat(stored.getStatus()).isEqualTo(MailStatus.SENT);
        assertThat(stored.getSentAt()).isEqualTo(FINISHED);
        assertThat(stored.getLastAttemptAt()).isEqualTo(STARTED);
        assertThat(stored.getLeaseOwner()).isNull();
        assertThat(stored.getLeaseExpiresAt()).isNull();
        assertThat(stored.getLastError()).isNull();
        assertThat(db.attempts(mail.getId())).singleElement().satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo(AttemptOutcome.SENT);
            assertThat(attempt.getSmtpReplyCode()).isEqualTo(250);
            assertThat(attempt.getSmtpReplyText()).isEqualTo("250 OK id=1abc");
            assertThat(attempt.getStartedAt()).isEqualTo(STARTED);
            assertThat(attempt.getFinishedAt()).isEqualTo(FINISHED);
            assertThat(attempt.getServerInstance()).isEqualTo(SERVER);
            assertThat(attempt.getLeaseOwner()).isEqualTo(OWNER);
            assertThat(attempt.getError()).isNull();
        });
    }

    @Test
    void aSentMailIsNeverClaimedAgain() {
        MailMessage mail = claimed(queuedWithAttempts(5), OWNER, NOW);
        record(OWNER, new DeliveryOutcome(mail.getId(), 5, STARTED, FINISHED, true, new SmtpReply(250, "250 OK"), null, "mailqueue"));

        assertThat(claim("other#1", NOW.plusDays(1))).isEmpty();
    }

    @Test
    void aFailedAttemptWithAttemptsLeftQueuesTheMailAgainAfterTheRetryDelay() {
        MailMessage mail = claimed(queuedWithAttempts(3), OWNER, NOW);

        int applied = record(OWNER, new DeliveryOutcome(mail.getId(), 3, STARTED, FINISHED, false,
                new SmtpReply(451, "451 4.3.0 try again later"), "451 4.3.0 try again later", "mailqueue"));

        assertThat(applied).isEqualTo(1);
        MailMessage stored = db.reload(mail.getId());
        assertThat(stored.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(stored.getAttemptsRemaining()).isEqualTo(2);
        assertThat(stored.getNotBefore()).isEqualTo(FINISHED.plusMinutes(5));
        assertThat(stored.getLastAttemptAt()).isEqualTo(STARTED);
        assertThat(stored.getLastError()).isEqualTo("451 4.3.0 try again later");
        assertThat(stored.getLeaseOwner()).isNull();
        assertThat(stored.getLeaseExpiresAt()).isNull();
        assertThat(stored.getSentAt()).isNull();
        assertThat(db.attempts(mail.getId())).singleElement().satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(attempt.getSmtpReplyCode()).isEqualTo(451);
            assertThat(attempt.getError()).isEqualTo("451 4.3.0 try again later");
        });
    }

    @Test
    void aMailQueuedAgainIsClaimedOnlyOnceItsRetryDelayHasPassed() {
        MailMessage mail = claimed(queuedWithAttempts(3), OWNER, NOW);
        record(OWNER, new DeliveryOutcome(mail.getId(), 3, STARTED, FINISHED, false, SmtpReply.NONE,
                "MailConnectException: Couldn't connect to host", "mailqueue"));

        assertThat(claim("other#1", FINISHED.plusMinutes(5).minusNanos(1_000_000))).isEmpty();
        assertThat(claim("other#1", FINISHED.plusMinutes(5))).extracting(MailMessage::getId)
                .containsExactly(mail.getId());
    }

    @Test
    void aFailedLastAttemptFailsTheMailForGood() {
        MailMessage mail = claimed(queuedWithAttempts(1), OWNER, NOW);

        int applied = record(OWNER, new DeliveryOutcome(mail.getId(), 1, STARTED, FINISHED, false,
                new SmtpReply(550, "550 5.1.1 no such user"), "550 5.1.1 no such user", "mailqueue"));

        assertThat(applied).isEqualTo(1);
        MailMessage stored = db.reload(mail.getId());
        assertThat(stored.getStatus()).isEqualTo(MailStatus.FAILED);
        assertThat(stored.getAttemptsRemaining()).isZero();
        assertThat(stored.getLastError()).isEqualTo("550 5.1.1 no such user");
        assertThat(stored.getLeaseOwner()).isNull();
        assertThat(db.attempts(mail.getId())).singleElement()
                .satisfies(attempt -> assertThat(attempt.getSmtpReplyCode()).isEqualTo(550));
        assertThat(claim("other#1", NOW.plusDays(1))).isEmpty();
    }

    @Test
    void aClaimerThatLostTheLeaseLeavesTheRowToTheNewOwnerButLogsItsAttempt() {
        MailMessage mail = claimed(queuedWithAttempts(5), OWNER, NOW);
        LocalDateTime afterExpiry = NOW.plusMinutes(2);
        claim("mail2.example.com/mailqueue#9", afterExpiry); // takes the row over
        MailMessage before = db.reload(mail.getId());

        int applied = record(OWNER, new DeliveryOutcome(mail.getId(), 5, STARTED, afterExpiry.plusSeconds(1), true,
                new SmtpReply(250, "250 OK"), null, "mailqueue"));

        assertThat(applied).isZero();
        MailMessage stored = db.reload(mail.getId());
        assertThat(stored.getStatus()).isEqualTo(MailStatus.SENDING);
        assertThat(stored.getLeaseOwner()).isEqualTo("mail2.example.com/mailqueue#9");
        assertThat(stored.getLeaseExpiresAt()).isEqualTo(before.getLeaseExpiresAt());
        assertThat(stored.getSentAt()).isNull();
        assertThat(stored.getAttemptsRemaining()).isEqualTo(5);
        assertThat(db.attempts(mail.getId())).singleElement().satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo(AttemptOutcome.SENT);
            assertThat(attempt.getLeaseOwner()).isEqualTo(OWNER);
            assertThat(attempt.getSmtpReplyCode()).isEqualTo(250);
            assertThat(attempt.getError()).contains("lease lost");
        });
    }

    @Test
    void aFailureRecordedWithoutTheLeaseKeepsItsErrorAndNotesTheLostLease() {
        MailMessage mail = claimed(queuedWithAttempts(3), OWNER, NOW);

        int applied = record("someone-else#1", new DeliveryOutcome(mail.getId(), 3, STARTED, FINISHED, false,
                new SmtpReply(421, "421 closing"), "421 closing", "mailqueue"));

        assertThat(applied).isZero();
        MailMessage stored = db.reload(mail.getId());
        assertThat(stored.getStatus()).isEqualTo(MailStatus.SENDING);
        assertThat(stored.getLeaseOwner()).isEqualTo(OWNER);
        assertThat(stored.getAttemptsRemaining()).isEqualTo(3);
        assertThat(stored.getNotBefore()).isEqualTo(NOW.minusMinutes(1));
        assertThat(stored.getLastError()).isNull();
        assertThat(db.attempts(mail.getId())).singleElement().satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo(AttemptOutcome.FAILED);
            assertThat(attempt.getLeaseOwner()).isEqualTo("someone-else#1");
            assertThat(attempt.getError()).startsWith("421 closing; ").contains("lease lost");
        });
    }

    @Test
    void aChunkIsRecordedWholeAndCountsOnlyTheRowsStillHeld() {
        MailMessage held = claimed(queuedWithAttempts(5), OWNER, NOW);
        MailMessage lost = db.insert(queuedWithAttempts(5)).get(0);
        claimOne(lost, "other#1");

        int applied = record(OWNER, List.of(
                new DeliveryOutcome(held.getId(), 5, STARTED, FINISHED, true, new SmtpReply(250, "250 OK"), null, "mailqueue"),
                new DeliveryOutcome(lost.getId(), 5, STARTED, FINISHED, true, new SmtpReply(250, "250 OK"), null, "mailqueue")));

        assertThat(applied).isEqualTo(1);
        assertThat(db.reload(held.getId()).getStatus()).isEqualTo(MailStatus.SENT);
        assertThat(db.reload(lost.getId()).getLeaseOwner()).isEqualTo("other#1");
        assertThat(db.attempts(held.getId())).hasSize(1);
        assertThat(db.attempts(lost.getId())).hasSize(1);
    }

    @Test
    void aLongErrorIsCutToItsColumn() {
        MailMessage mail = claimed(queuedWithAttempts(3), OWNER, NOW);
        String longError = "x".repeat(5000);

        record(OWNER, new DeliveryOutcome(mail.getId(), 3, STARTED, FINISHED, false,
                new SmtpReply(554, "y".repeat(3000)), longError, "mailqueue"));

        assertThat(db.reload(mail.getId()).getLastError()).hasSize(2000);
        MailAttempt attempt = db.attempts(mail.getId()).get(0);
        assertThat(attempt.getError()).hasSize(2000);
        assertThat(attempt.getSmtpReplyText()).hasSize(1000);
    }

    @Test
    void aSentMailHasNoAttemptsRemaining() {
        MailMessage mail = claimed(queuedWithAttempts(5), OWNER, NOW);

        record(OWNER, new DeliveryOutcome(mail.getId(), 5, STARTED, FINISHED, true, new SmtpReply(250, "250 OK"), null, "mailqueue"));

        assertThat(db.reload(mail.getId()).getAttemptsRemaining()).isZero();
    }

    private static MailMessage queuedWithAttempts(int attempts) {
        MailMessage mail = Rows.queued("attempts " + attempts, NOW.minusMinutes(1));
        mail.setAttemptsRemaining(attempts);
        return mail;
    }

    /** Inserts the row and claims it, as the dispatch job does before it sends. */
    private MailMessage claimed(MailMessage row, String owner, LocalDateTime now) {
        db.insert(row);
        List<MailMessage> claimed = claim(owner, now);
        assertThat(claimed).extracting(MailMessage::getId).containsExactly(row.getId());
        return claimed.get(0);
    }

    private void claimOne(MailMessage row, String owner) {
        assertThat(claim(owner, NOW)).extracting(MailMessage::getId).containsExactly(row.getId());
    }

    private static List<MailMessage> claim(String owner, LocalDateTime now) {
        return db.inTransaction(em -> {
            MailClaimer claimer = new MailClaimer();
            claimer.em = em;
            return claimer.claim(owner, LEASE_MS, 10, now);
        });
    }

    private int record(String owner, DeliveryOutcome outcome) {
        return record(owner, List.of(outcome));
    }

    private int record(String owner, List<DeliveryOutcome> outcomes) {
        return db.inTransaction(em -> {
            cut.em = em;
            return cut.record(outcomes, owner, SERVER, FIVE_MINUTES);
        });
    }
}
