package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.settings.control.RetryPolicy;
import dev.mailqueue.api.MailStatus;

import java.time.Instant;

/**
 * The delivery policy's status rules in one place: what an attempt's outcome, or a lease that ran out,
 * makes of its mail row.
 * <ul>
 *   <li>sent: SENT;</li>
 *   <li>permanent failure (5yz, class-5 enhanced status, or no message to send): FAILED at once;</li>
 *   <li>transient failure: QUEUED again after the backoff ({@link RetryPolicy}) while attempts remain,
 *       FAILED after the last one, and EXPIRED instead when the next attempt would come after the
 *       mail's expires-at;</li>
 *   <li>in doubt (no answer to the end of DATA): as transient, never at once, but HELD under
 *       {@link InDoubtPolicy#HOLD} or when no attempt is left;</li>
 *   <li>a lease that ran out: its claimer's mails go back to the queue as they were, but for its first
 *       unrecorded mail, which is in doubt ({@link ExpiredLease}): QUEUED at once under
 *       {@link InDoubtPolicy#RESEND} (the lease time has passed already), else HELD.</li>
 * </ul>
 *
 * @param status            the new status
 * @param attemptsRemaining attempts left afterwards, 0 or more
 * @param notBefore         earliest next attempt (for a final status, when it ended)
 * @param error             what last_error says, or null
 */
public record Transition(MailStatus status, int attemptsRemaining, Instant notBefore, String error) {

    /** What of an attempt's outcome decides the mail's next state ({@link AttemptResult} is one). */
    public interface Outcome {
        /** @return how the attempt ended */
        Verdict verdict();

        /** @return the attempts the mail had left before this one, 1 or more */
        int attemptsRemaining();

        /** @return when the attempt ended */
        Instant finishedAt();

        /** @return after this the mail must not be sent, or null */
        Instant expiresAt();

        /** @return the attempt's error, or null */
        String error();
    }

    /**
     * @param result  an attempt's outcome
     * @param retry   the backoff
     * @param inDoubt what to do with an in-doubt send
     * @return the row's next state
     */
    public static Transition after(Outcome result, RetryPolicy retry, InDoubtPolicy inDoubt) {
        int left = Math.max(0, result.attemptsRemaining() - 1);
        Instant ended = result.finishedAt();
        String error = result.error();
        return switch (result.verdict()) {
            case SENT -> new Transition(MailStatus.SENT, 0, ended, error);
            case PERMANENT -> new Transition(MailStatus.FAILED, left, ended, error);
            case EXPIRED -> new Transition(MailStatus.EXPIRED, result.attemptsRemaining(), ended, error);
            case TRANSIENT -> left == 0
                    ? new Transition(MailStatus.FAILED, 0, ended, error)
                    : retryLater(result, retry, left, error);
            case IN_DOUBT -> inDoubt == InDoubtPolicy.HOLD || left == 0
                    ? new Transition(MailStatus.HELD, left, ended, error + "; held for review")
                    : retryLater(result, retry, left, error + "; sending again later with the same Message-ID");
        };
    }

    private static Transition retryLater(Outcome result, RetryPolicy retry, int left, String error) {
        Instant next = retry.nextAttemptAt(result.finishedAt(), result.attemptsRemaining());
        if (result.expiresAt() != null && next.isAfter(result.expiresAt())) {
            return new Transition(MailStatus.EXPIRED, left, result.finishedAt(), error
                    + "; expires at " + result.expiresAt() + ", before the next attempt was due");
        }
        return new Transition(MailStatus.QUEUED, left, next, error);
    }

    /**
     * @param lease   a lease that ran out
     * @param inDoubt what to do when its claimer had begun to send
     * @param now     now
     * @return the row's next state
     */
    public static Transition afterLostLease(ExpiredLease lease, InDoubtPolicy inDoubt, Instant now) {
        if (!lease.inDoubt()) {
            return new Transition(MailStatus.QUEUED, lease.attemptsRemaining(), now,
                    "lease of " + lease.owner() + " ran out before it sent this mail; queued again");
        }
        int left = Math.max(0, lease.attemptsRemaining() - 1);
        boolean resend = inDoubt == InDoubtPolicy.RESEND && left > 0;
        return new Transition(resend ? MailStatus.QUEUED : MailStatus.HELD, left, now,
                "in doubt: the lease of " + lease.owner() + " ran out with this mail its first unrecorded one, which it may"
                        + " have sent; " + (resend ? "sending again with the same Message-ID" : "held for review"));
    }
}
