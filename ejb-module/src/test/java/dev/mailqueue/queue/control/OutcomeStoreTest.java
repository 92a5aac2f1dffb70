package dev.mailqueue.queue.control;

import dev.mailqueue.mail.entity.RecipientStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a claimer records, on the real schema and database, one transition each: the send-started mark,
 * each verdict's next state and attempt log, per-recipient rows (a repeated recipient recorded once),
 * a hand-back, the release of what a claimer never sent, and that a claimer whose lease was taken over
 * never touches the new owner's row.
 */
class OutcomeStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");
    static final String OWNER = "host/server#7";
    static final RetryPolicy RETRY = new RetryPolicy(300_000, 4_000_000, 0.25, 5);

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    OutcomeStore cut;
    ClaimStore claims;
    EnqueueStore enqueuer;

    @BeforeEach
    void store() {
        cut = db.outcomeStore();
        claims = db.claimStore();
        enqueuer = db.enqueueStore();
    }

    /** @return a mail leased to {@link #OWNER} */
    ClaimedMail leased(NewMail mail) {
        db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mail)));
        return db.inTransaction(() -> claims.claim(OWNER, "host/server", NOW, NOW.plusSeconds(60), 1,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS)).mails().get(0);
    }

    void apply(InDoubtPolicy inDoubt, Change... changes) {
        db.inTransaction(() -> {
            cut.apply(List.of(changes), RETRY, inDoubt, false);
            return null;
        });
    }

    static AttemptResult result(ClaimedMail mail, Verdict verdict, Integer code, String error, List<RecipientResult> recipients) {
        return new AttemptResult(mail.id(), OWNER, "host/server", "mailqueue", mail.attemptsRemaining(), mail.expiresAt(),
                NOW.plusSeconds(1), NOW.plusSeconds(2), verdict, code, code == null ? null : code + " reply", null,
                error, recipients);
    }

    String status(long id) {
        return db.text("SELECT STATUS FROM MAIL_MESSAGE WHERE ID = ?", id);
    }

    long attemptsLeft(long id) {
        return db.number("SELECT ATTEMPTS_REMAINING FROM MAIL_MESSAGE WHERE ID = ?", id);
    }

    Instant instant(String column, long id) throws Exception {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("SELECT " + column + " FROM MAIL_MESSAGE WHERE ID = ?")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return SqlTime.get(r, 1);
            }
        }
    }

    @Test
    void theSendStartedMarkIsWrittenOnlyForTheClaimersOwnRow() throws Exception {
        ClaimedMail mail = leased(mail("marked", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.SendStarted(mail.id(), "someone/else#1", NOW));
        assertThat(instant("SEND_STARTED_AT", mail.id())).isNull();
        apply(InDoubtPolicy.RESEND, new Change.SendStarted(mail.id(), OWNER, NOW.plusMillis(5)));
        assertThat(instant("SEND_STARTED_AT", mail.id())).isEqualTo(NOW.plusMillis(5));
    }

    @Test
    void aSentMailIsSentWithItsAttemptLoggedAndItsLeaseAndMarkCleared() throws Exception {
        ClaimedMail mail = leased(mail("sent", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.SendStarted(mail.id(), OWNER, NOW),
                new Change.Attempted(result(mail, Verdict.SENT, 250, null, List.of())));

        assertThat(status(mail.id())).isEqualTo("SENT");
        assertThat(instant("SENT_AT", mail.id())).isEqualTo(NOW.plusSeconds(2));
        assertThat(instant("SEND_STARTED_AT", mail.id())).isNull();
        assertThat(db.text("SELECT LEASE_OWNER FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).isNull();
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("SENT");
        assertThat(db.number("SELECT SMTP_REPLY_CODE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo(250);
    }

    @Test
    void aTransientFailureQueuesTheMailAgainAfterTheBackoffWithOneAttemptLess() throws Exception {
        ClaimedMail mail = leased(mail("deferred", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 451, "451 try later", List.of())));

        assertThat(status(mail.id())).isEqualTo("QUEUED");
        assertThat(attemptsLeft(mail.id())).isEqualTo(4);
        assertThat(instant("NOT_BEFORE", mail.id())).isBetween(NOW.plusSeconds(2 + 225), NOW.plusSeconds(2 + 375));
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("FAILED");
    }

    @Test
    void theLastTransientFailureFailsTheMail() {
        ClaimedMail mail = leased(TestMails.attempts(mail("last try", 4, NOW), 1, null));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 451, "451 try later", List.of())));
        assertThat(status(mail.id())).isEqualTo("FAILED");
        assertThat(attemptsLeft(mail.id())).isZero();
    }

    @Test
    void aMailThatWouldExpireBeforeItsNextAttemptExpires() {
        ClaimedMail mail = leased(TestMails.attempts(mail("short-lived", 4, NOW), 5, NOW.plusSeconds(60)));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 451, "451 try later", List.of())));
        assertThat(status(mail.id())).isEqualTo("EXPIRED");
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).contains("before the next attempt");
    }

    @Test
    void aPermanentFailureFailsTheMailAtOnce() {
        ClaimedMail mail = leased(mail("refused", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.PERMANENT, 550, "550 5.1.1 no such user", List.of())));
        assertThat(status(mail.id())).isEqualTo("FAILED");
        assertThat(attemptsLeft(mail.id())).isEqualTo(4);
    }

    @Test
    void anInDoubtSendIsTriedAgainLaterNeverAtOnceOrHeld() throws Exception {
        ClaimedMail resent = leased(mail("no answer to the dot", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(resent, Verdict.IN_DOUBT, null, "in doubt: read timed out", List.of())));
        assertThat(status(resent.id())).isEqualTo("QUEUED");
        assertThat(instant("NOT_BEFORE", resent.id())).isAfter(NOW.plusSeconds(200));
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", resent.id())).isEqualTo("IN_DOUBT");

        ClaimedMail held = leased(mail("held", 4, NOW));
        apply(InDoubtPolicy.HOLD, new Change.Attempted(result(held, Verdict.IN_DOUBT, null, "in doubt: read timed out", List.of())));
        assertThat(status(held.id())).isEqualTo("HELD");
    }

    @Test
    void anExpiredMailIsExpiredWithoutAnAttempt() {
        ClaimedMail mail = leased(mail("too late", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.EXPIRED, null, "expired", List.of())));
        assertThat(status(mail.id())).isEqualTo("EXPIRED");
        assertThat(attemptsLeft(mail.id())).isEqualTo(5);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isZero();
    }

    @Test
    void anOutcomeAfterTheLeaseWasTakenOverLeavesTheNewOwnersRowAloneAndIsLoggedAsSuch() {
        ClaimedMail mail = leased(mail("taken over", 4, NOW));
        db.update("UPDATE MAIL_MESSAGE SET LEASE_OWNER = 'new/owner#1' WHERE ID = ?", mail.id());

        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.SENT, 250, null, List.of())));

        assertThat(status(mail.id())).isEqualTo("SENDING");
        assertThat(db.text("SELECT LEASE_OWNER FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).isEqualTo("new/owner#1");
        assertThat(db.text("SELECT ERROR FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).contains(OutcomeStore.LEASE_LOST);
    }

    @Test
    void aWriteRepeatedAfterAnUnknownCommitDoesNotLogTheAttemptTwice() {
        ClaimedMail mail = leased(mail("committed unseen", 4, NOW));
        Change sent = new Change.Attempted(result(mail, Verdict.SENT, 250, null, List.of()));
        apply(InDoubtPolicy.RESEND, sent);
        db.inTransaction(() -> {
            cut.apply(List.of(sent), RETRY, InDoubtPolicy.RESEND, true);
            return null;
        });
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo(1);
    }

    @Test
    void perRecipientOutcomesAreKeptOncePerAddressWhateverTheCaseAndReplaceEarlierOnes() {
        ClaimedMail mail = leased(TestMails.to(mail("mixed", 4, NOW), List.of("ok@x.example", "OK@x.example"), List.of(),
                List.of("bad@x.example")));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 550, "bad refused", List.of(
                new RecipientResult("ok@x.example", RecipientStatus.SENT, null, null, null),
                new RecipientResult("OK@x.example", RecipientStatus.SENT, null, null, null),
                new RecipientResult("bad@x.example", RecipientStatus.DEFERRED, 450, "450 later", "4.2.1")))));

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", mail.id())).isEqualTo(2);
        assertThat(status(mail.id())).isEqualTo("QUEUED");

        ClaimedMail again = db.inTransaction(() -> claims.claim(OWNER, "host/server", NOW.plus(Duration.ofHours(2)),
                NOW.plus(Duration.ofHours(3)), 1, InDoubtPolicy.RESEND, TestMails.ACCOUNTS)).mails().get(0);
        assertThat(again.settled()).containsOnlyKeys("ok@x.example");
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(again, Verdict.PERMANENT, 550, "refused", List.of(
                new RecipientResult("BAD@x.example", RecipientStatus.REFUSED, 550, "550 5.1.1 gone", "5.1.1")))));
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND LOWER(ADDRESS) = 'bad@x.example'",
                mail.id())).isEqualTo("REFUSED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", mail.id())).isEqualTo(2);
    }

    @Test
    void aHandBackQueuesTheMailAgainWithItsAttemptsUntouchedAndNothingLogged() throws Exception {
        ClaimedMail mail = leased(mail("rate limited", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.SendStarted(mail.id(), OWNER, NOW),
                new Change.HandedBack(mail.id(), OWNER, NOW.plusSeconds(30), "account unreachable"));

        assertThat(status(mail.id())).isEqualTo("QUEUED");
        assertThat(attemptsLeft(mail.id())).isEqualTo(5);
        assertThat(instant("NOT_BEFORE", mail.id())).isEqualTo(NOW.plusSeconds(30));
        assertThat(instant("SEND_STARTED_AT", mail.id())).isNull();
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).isEqualTo("account unreachable");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).isZero();
    }

    @Test
    void aClaimerThatEndsReleasesOnlyWhatItNeverBeganToSend() {
        ClaimedMail untouched = leased(mail("untouched", 4, NOW));
        ClaimedMail started = leased(mail("in flight", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.SendStarted(started.id(), OWNER, NOW));

        apply(InDoubtPolicy.RESEND, new Change.Released(OWNER, List.of(untouched.id(), started.id())));

        assertThat(status(untouched.id())).isEqualTo("QUEUED");
        assertThat(attemptsLeft(untouched.id())).isEqualTo(5);
        assertThat(status(started.id())).as("its outcome is unknown: left to its lease").isEqualTo("SENDING");
    }
}
