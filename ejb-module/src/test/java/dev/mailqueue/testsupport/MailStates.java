package dev.mailqueue.testsupport;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.control.BounceReport;
import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.BounceStore;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimStore;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.MailGroup;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.settings.control.RetryPolicy;
import dev.mailqueue.queue.control.SqlTime;
import dev.mailqueue.queue.control.SuppressionStore;
import dev.mailqueue.queue.control.Verdict;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Puts mails into the states a reading test needs the way the queue does, through the stores: enqueue, a claim by a
 * claimer of its own, the outcome of an attempt, an operator's cancel or requeue. Each step in a transaction of its
 * own, at the times the test names (a cancel happens now, as {@code OperatorStore.cancel} takes no time: {@link
 * #cancel} moves its log row to the time asked for). Backoff without jitter: a transient failure of a mail with
 * {@code n} attempts left is due again 5 minutes later times 2^(5 - n).
 */
public final class MailStates {

    /** The server the steps name in the log. */
    public static final String SERVER = "host/server";

    /** The retry policy of the outcomes: 5 minutes, doubling up to an hour, no jitter, 5 attempts. */
    public static final RetryPolicy RETRY = new RetryPolicy(300_000, 3_600_000, 0, 5);

    private static final AtomicInteger CLAIMERS = new AtomicInteger();

    private final QueueDatabase db;

    /** @param db the database the stores write to */
    public MailStates(QueueDatabase db) {
        this.db = db;
    }

    /** @return the id of the mail, enqueued (QUEUED, or SUPPRESSED when none of its recipients may be sent to) */
    public long enqueue(NewMail mail) {
        return db.inTransaction(() -> db.enqueueStore().enqueue(List.of(new MailGroup(List.of(mail), false, null, null)),
                SERVER)).get(0).get(0).id();
    }

    /**
     * Claims mail {@code id} at {@code at} for a claimer of its own, whose lease runs for an hour; the other due mail
     * that claim took goes back as it was.
     *
     * @return the claim: its lease, and the mail as claimed
     * @throws IllegalStateException when the mail was not due and free at {@code at}
     */
    public Claimed claim(long id, Instant at) {
        ClaimStore claims = db.claimStore();
        Lease lease = db.inTransaction(() -> claims.start("test-host/server#" + CLAIMERS.incrementAndGet(), at,
                at.plus(Duration.ofHours(1))));
        List<ClaimedMail> taken = db.inTransaction(() -> claims.claim(lease, 1, SERVER, at, at.plusSeconds(60), 10_000,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false)).mails();
        ClaimedMail mail = taken.stream().filter(m -> m.id() == id).findFirst()
                .orElseThrow(() -> new IllegalStateException("mail " + id + " was not claimable at " + at));
        List<Long> others = new ArrayList<>();
        taken.stream().filter(m -> m.id() != id).forEach(m -> others.add(m.id()));
        if (!others.isEmpty()) {
            apply(new Change.Released(lease.claimer(), others, false), InDoubtPolicy.RESEND);
        }
        return new Claimed(lease, mail);
    }

    /**
     * A claimed mail.
     *
     * @param lease its claimer
     * @param mail  the mail as the claim read it
     */
    public record Claimed(Lease lease, ClaimedMail mail) {
    }

    /**
     * Claims the mail when {@code started}, records the attempt's outcome, and ends the claimer.
     *
     * @param recipients per-recipient results, or none
     * @param inDoubt    what becomes of an attempt in doubt
     */
    public void attempt(long id, Instant started, Instant finished, Verdict verdict, Integer code, String error,
                        List<RecipientResult> recipients, InDoubtPolicy inDoubt) {
        attempt(claim(id, started), started, finished, verdict, code, error, recipients, inDoubt);
    }

    /**
     * Records the outcome of an attempt at a claimed mail, and ends its claimer.
     *
     * @param recipients per-recipient results, or none
     * @param inDoubt    what becomes of an attempt in doubt
     */
    public void attempt(Claimed claimed, Instant started, Instant finished, Verdict verdict, Integer code, String error,
                        List<RecipientResult> recipients, InDoubtPolicy inDoubt) {
        AttemptResult result = new AttemptResult(claimed.mail().id(), claimed.lease(), SERVER, claimed.mail().account(),
                claimed.mail().attemptsRemaining(), claimed.mail().expiresAt(), started, finished, verdict, code,
                code == null ? null : code + " " + error, null, error, recipients);
        apply(new Change.Attempted(result), inDoubt);
        apply(new Change.Released(claimed.lease().claimer(), List.of(), true), inDoubt);
    }

    /** The mail is claimed when {@code started} and SENT when {@code finished}. */
    public void sent(long id, Instant started, Instant finished) {
        attempt(id, started, finished, Verdict.SENT, 250, null, List.of(), InDoubtPolicy.RESEND);
    }

    /**
     * The bounce mailbox reports that {@code address} of the mail with {@code messageId} bounced for good (a DSN,
     * {@code Action: failed}, 5.1.1), read at {@code at}: a BOUNCED row in the mail's log, and the address
     * suppressed.
     */
    public void bounce(String messageId, String address, Instant at) {
        BounceStore bounces = BounceStore.on(db.tables(), SuppressionStore.on(db.tables()));
        BounceReport report = new BounceReport("report-" + messageId + "-" + address, BounceReport.Kind.FAILED,
                messageId, List.of(new BounceReport.Recipient(address, address, BounceReport.Action.FAILED, "5.1.1",
                "550 5.1.1 no such user")), "no such user");
        db.inTransaction(() -> bounces.record(report, SERVER, at));
    }

    /** An attempt from {@code started} to {@code finished} that failed: for a while (TRANSIENT) or for good. */
    public void failed(long id, Instant started, Instant finished, Verdict verdict, int code, String error) {
        attempt(id, started, finished, verdict, code, error, List.of(), InDoubtPolicy.RESEND);
    }

    /** The operator cancels the mail (QUEUED or HELD), its log row moved to {@code at}. */
    public void cancel(long id, Instant at) {
        int cancelled = db.inTransaction(() -> db.operatorStore().cancel(List.of(id), MailLifecycle.CANCELLABLE,
                SERVER, "operator:test"));
        if (cancelled != 1) {
            throw new IllegalStateException("mail " + id + " could not be cancelled");
        }
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("UPDATE MAIL_ATTEMPT SET STARTED_AT = ?,"
                + " FINISHED_AT = ? WHERE MAIL_ID = ? AND OUTCOME = 'CANCELLED'")) {
            SqlTime.set(s, 1, at);
            SqlTime.set(s, 2, at);
            s.setLong(3, id);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The operator requeues the mail at {@code at}, with 5 attempts and no expiry. */
    public void requeue(long id, Instant at) {
        int requeued = db.inTransaction(() -> db.operatorStore().requeue(List.of(id), at, 5, null, SERVER,
                "operator:test"));
        if (requeued != 1) {
            throw new IllegalStateException("mail " + id + " could not be requeued");
        }
    }

    /** @return the mail's status, as the view MAIL_STATE says it */
    public MailStatus status(long id) {
        String status = db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id);
        return status == null ? null : MailStatus.valueOf(status);
    }

    private void apply(Change change, InDoubtPolicy inDoubt) {
        db.inTransaction(() -> {
            db.outcomeStore().apply(List.of(change), RETRY, inDoubt, false);
            return null;
        });
    }
}
