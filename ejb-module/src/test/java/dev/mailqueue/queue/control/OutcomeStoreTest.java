package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.settings.control.RetryPolicy;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
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
 * What a claimer records, on the real schema and database, one transition each: each verdict's next state (a
 * finished mail leaves the queue, one tried again gets its new due time there) and its one log row, which records the
 * status and the event; per-recipient results (a repeated recipient recorded once); a hand-back; the release of what
 * a claimer never sent and the end of its lease; and that a claimer that lost its lease never touches the new
 * holder's work. The mail's content is never written.
 */
@Tag("database")
class OutcomeStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");
    static final RetryPolicy RETRY = new RetryPolicy(300_000, 4_000_000, 0.25, 5);

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    OutcomeStore cut;
    ClaimStore claims;
    EnqueueStore enqueuer;
    Lease lease;

    @BeforeEach
    void store() {
        cut = db.outcomeStore();
        claims = db.claimStore();
        enqueuer = db.enqueueStore();
        lease = db.inTransaction(() -> claims.start("host/server#7", NOW, NOW.plusSeconds(60)));
    }

    int claimNo;

    /** @return a mail claimed by {@link #lease} */
    ClaimedMail claimed(NewMail mail) {
        db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mail), "host/server"));
        return db.inTransaction(() -> claims.claim(lease, ++claimNo, "host/server", NOW, NOW.plusSeconds(60), 1, InDoubtPolicy.RESEND,
                TestMails.ACCOUNTS, false)).mails().get(0);
    }

    void apply(InDoubtPolicy inDoubt, Change... changes) {
        db.inTransaction(() -> {
            cut.apply(List.of(changes), RETRY, inDoubt, false);
            return null;
        });
    }

    static AttemptResult result(ClaimedMail mail, Lease lease, Verdict verdict, Integer code, String error,
                                List<RecipientResult> recipients) {
        return new AttemptResult(mail.id(), lease, "host/server", "mailqueue", mail.attemptsRemaining(), mail.expiresAt(),
                NOW.plusSeconds(1), NOW.plusSeconds(2), verdict, code, code == null ? null : code + " reply", null,
                error, recipients);
    }

    AttemptResult result(ClaimedMail mail, Verdict verdict, Integer code, String error, List<RecipientResult> recipients) {
        return result(mail, lease, verdict, code, error, recipients);
    }

    /** @return the outcome of a send the server accepted at {@code at} */
    static Change sent(ClaimedMail mail, Lease lease, Instant at) {
        return new Change.Attempted(new AttemptResult(mail.id(), lease, "host/server", "mailqueue", mail.attemptsRemaining(),
                mail.expiresAt(), at, at, Verdict.SENT, 250, "250 ok", null, null, List.of()));
    }

    String status(long id) {
        return db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id);
    }

    long attemptsLeft(long id) {
        return db.number("SELECT ATTEMPTS_LEFT FROM MAIL_QUEUE WHERE MAIL_ID = ?", id);
    }

    Instant instant(String column, long id) throws Exception {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("SELECT " + column
                + " FROM MAIL_STATE WHERE MAIL_ID = ?")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return SqlTime.get(r, 1);
            }
        }
    }

    @Test
    void aSentMailLeavesTheQueueWithOneLogRowThatIsItsStatusAndItsEvent() throws Exception {
        ClaimedMail mail = claimed(mail("sent", 4, NOW));
        String content = db.text("SELECT SUBJECT FROM MAIL_MESSAGE WHERE ID = ?", mail.id());

        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.SENT, 250, null, List.of())));

        assertThat(status(mail.id())).isEqualTo("SENT");
        assertThat(instant("SENT_AT", mail.id())).isEqualTo(NOW.plusSeconds(2));
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE MAIL_ID = ?", mail.id())).as("finished").isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo(1);
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("SENT");
        assertThat(db.text("SELECT MAIL_STATUS FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("SENT");
        assertThat(db.text("SELECT EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("SENT");
        assertThat(db.number("SELECT SMTP_REPLY_CODE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo(250);
        assertThat(db.text("SELECT SUBJECT FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).isEqualTo(content);
    }

    @Test
    void aTransientFailureQueuesTheMailAgainAfterTheBackoffWithOneAttemptLess() throws Exception {
        ClaimedMail mail = claimed(mail("deferred", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 451, "451 try later", List.of())));

        assertThat(status(mail.id())).isEqualTo("QUEUED");
        assertThat(attemptsLeft(mail.id())).isEqualTo(4);
        assertThat(instant("DUE_AT", mail.id())).isBetween(NOW.plusSeconds(2 + 225), NOW.plusSeconds(2 + 375));
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("FAILED");
        assertThat(db.text("SELECT EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("DEFERRED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND NEXT_ATTEMPT_AT IS NOT NULL",
                mail.id())).isEqualTo(1);
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_STATE WHERE MAIL_ID = ?", mail.id())).startsWith("451 try later");
    }

    @Test
    void theLastTransientFailureFailsTheMail() {
        ClaimedMail mail = claimed(TestMails.attempts(mail("last try", 4, NOW), 1, null));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 451, "451 try later", List.of())));
        assertThat(status(mail.id())).isEqualTo("FAILED");
        assertThat(db.text("SELECT EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("FAILED");
    }

    @Test
    void aMailThatWouldExpireBeforeItsNextAttemptExpires() {
        ClaimedMail mail = claimed(TestMails.attempts(mail("short-lived", 4, NOW), 5, NOW.plusSeconds(60)));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 451, "451 try later", List.of())));
        assertThat(status(mail.id())).isEqualTo("EXPIRED");
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_STATE WHERE MAIL_ID = ?", mail.id())).contains("before the next attempt");
    }

    @Test
    void aPermanentFailureFailsTheMailAtOnce() {
        ClaimedMail mail = claimed(mail("refused", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.PERMANENT, 550, "550 5.1.1 no such user", List.of())));
        assertThat(status(mail.id())).isEqualTo("FAILED");
        assertThat(db.text("SELECT EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo("REFUSED");
    }

    @Test
    void anInDoubtSendIsTriedAgainLaterNeverAtOnceOrHeld() throws Exception {
        ClaimedMail resent = claimed(mail("no answer to the dot", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(resent, Verdict.IN_DOUBT, null, "in doubt: read timed out", List.of())));
        assertThat(status(resent.id())).isEqualTo("QUEUED");
        assertThat(instant("DUE_AT", resent.id())).isAfter(NOW.plusSeconds(200));
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", resent.id())).isEqualTo("IN_DOUBT");

        ClaimedMail held = claimed(mail("held", 4, NOW));
        apply(InDoubtPolicy.HOLD, new Change.Attempted(result(held, Verdict.IN_DOUBT, null, "in doubt: read timed out", List.of())));
        assertThat(status(held.id())).isEqualTo("HELD");
        assertThat(db.text("SELECT EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", held.id())).isEqualTo("HELD");
    }

    @Test
    void anExpiredMailIsExpiredWithoutAnAttempt() {
        ClaimedMail mail = claimed(mail("too late", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.EXPIRED, null, "expired", List.of())));
        assertThat(status(mail.id())).isEqualTo("EXPIRED");
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).as("no attempt: a status change")
                .isEqualTo("EXPIRED");
        assertThat(db.text("SELECT LAST_ATTEMPT_AT FROM MAIL_STATE WHERE MAIL_ID = ?", mail.id())).isNull();
    }

    @Test
    void anOutcomeAfterTheLeaseWasTakenOverLeavesTheNewHoldersMailAloneAndIsLoggedAsSuch() {
        ClaimedMail mail = claimed(mail("taken over", 4, NOW));
        Lease other = db.inTransaction(() -> claims.start("new/owner#1", NOW, NOW.plusSeconds(60)));
        db.update("UPDATE MAIL_QUEUE SET CLAIMER = ? WHERE MAIL_ID = ?", other.claimer(), mail.id());

        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.SENT, 250, null, List.of())));

        assertThat(status(mail.id())).isEqualTo("SENDING");
        assertThat(db.number("SELECT CLAIMER FROM MAIL_QUEUE WHERE MAIL_ID = ?", mail.id())).isEqualTo(other.claimer());
        assertThat(db.text("SELECT ERROR FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).contains(OutcomeStore.LEASE_LOST);
        assertThat(db.text("SELECT MAIL_STATUS FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).as("no status, no event").isNull();
        assertThat(db.text("SELECT EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isNull();
    }

    @Test
    void aWriteRepeatedAfterAnUnknownCommitDoesNotLogTheAttemptTwice() {
        ClaimedMail mail = claimed(mail("committed unseen", 4, NOW));
        Change sent = new Change.Attempted(result(mail, Verdict.SENT, 250, null, List.of()));
        apply(InDoubtPolicy.RESEND, sent);
        db.inTransaction(() -> {
            cut.apply(List.of(sent), RETRY, InDoubtPolicy.RESEND, true);
            return null;
        });
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo(1);
    }

    @Test
    void manyOutcomesOfOneGroupAreWrittenTogether() {
        List<Change> group = new java.util.ArrayList<>();
        List<Long> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ClaimedMail mail = claimed(mail("group " + i, 4, NOW));
            ids.add(mail.id());
            group.add(new Change.Attempted(result(mail, i % 5 == 0 ? Verdict.TRANSIENT : Verdict.SENT, 250, null, List.of())));
        }
        apply(InDoubtPolicy.RESEND, group.toArray(Change[]::new));

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).isEqualTo(20);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE")).as("the four tried again").isEqualTo(4);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_STATE WHERE STATUS = 'SENT'")).isEqualTo(16);
        assertThat(db.number("SELECT MIN(ID) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", ids.get(19)))
                .as("written in order").isGreaterThan(db.number("SELECT MIN(ID) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", ids.get(0)));
    }

    @Test
    void perRecipientOutcomesAreKeptOncePerAddressWhateverTheCaseAndTheLatestCounts() {
        ClaimedMail mail = claimed(TestMails.to(mail("mixed", 4, NOW), List.of("ok@x.example", "OK@x.example"), List.of(),
                List.of("bad@x.example")));
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(mail, Verdict.TRANSIENT, 550, "bad refused", List.of(
                new RecipientResult("ok@x.example", RecipientStatus.SENT, null, null, null),
                new RecipientResult("OK@x.example", RecipientStatus.SENT, null, null, null),
                new RecipientResult("bad@x.example", RecipientStatus.DEFERRED, 450, "450 later", "4.2.1")))));

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", mail.id())).isEqualTo(2);
        assertThat(db.number("SELECT RESULTS FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", mail.id())).isEqualTo(2);
        assertThat(status(mail.id())).isEqualTo("QUEUED");

        ClaimedMail again = db.inTransaction(() -> claims.claim(lease, ++claimNo, "host/server", NOW.plus(Duration.ofHours(2)), NOW.plus(Duration.ofHours(2)).plusSeconds(60),
                1, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false)).mails().get(0);
        assertThat(again.settled()).containsOnlyKeys("ok@x.example");
        apply(InDoubtPolicy.RESEND, new Change.Attempted(result(again, Verdict.PERMANENT, 550, "refused", List.of(
                new RecipientResult("BAD@x.example", RecipientStatus.REFUSED, 550, "550 5.1.1 gone", "5.1.1")))));
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND LOWER(ADDRESS) = 'bad@x.example'"
                + " AND ATTEMPT_ID = (SELECT MAX(ATTEMPT_ID) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?)", mail.id(), mail.id()))
                .isEqualTo("REFUSED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", mail.id())).as("insert only").isEqualTo(3);
    }

    @Test
    void aHandBackQueuesTheMailAgainWithItsAttemptsUntouchedAndNothingLogged() throws Exception {
        ClaimedMail mail = claimed(mail("rate limited", 4, NOW));
        apply(InDoubtPolicy.RESEND, new Change.HandedBack(mail.id(), lease.claimer(), NOW.plusSeconds(30), "account unreachable"));

        assertThat(status(mail.id())).isEqualTo("QUEUED");
        assertThat(attemptsLeft(mail.id())).isEqualTo(5);
        assertThat(instant("DUE_AT", mail.id())).isEqualTo(NOW.plusSeconds(30));
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_STATE WHERE MAIL_ID = ?", mail.id())).isEqualTo("account unreachable");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).isZero();
    }

    @Test
    void aClaimerThatEndsReleasesWhatItNeverBeganAndItsLeaseGoesOnlyOnceItHoldsNothing() {
        ClaimedMail untouched = claimed(mail("untouched", 4, NOW));
        ClaimedMail unrecorded = claimed(mail("in flight, its outcome lost", 4, NOW));

        apply(InDoubtPolicy.RESEND, new Change.Released(lease.claimer(), List.of(untouched.id()), true));

        assertThat(status(untouched.id())).isEqualTo("QUEUED");
        assertThat(attemptsLeft(untouched.id())).isEqualTo(5);
        assertThat(status(unrecorded.id())).as("its outcome is unknown: left to the lease").isEqualTo("SENDING");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_CLAIMER WHERE ID = ?", lease.claimer())).as("still holds one")
                .isEqualTo(1);

        apply(InDoubtPolicy.RESEND, sent(unrecorded, lease, NOW), new Change.Released(lease.claimer(), List.of(), true));
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_CLAIMER WHERE ID = ?", lease.claimer())).isZero();
    }
}
