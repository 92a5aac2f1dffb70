package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;

import java.time.LocalDateTime;

/**
 * What an attempt's outcome makes of its mail row: the delivery policy in one place.
 * <ul>
 *   <li>sent: SENT, no attempts remaining;</li>
 *   <li>permanent failure (5yz, class-5 enhanced status, or no message to send): FAILED at once;</li>
 *   <li>transient failure: QUEUED again after the backoff ({@link RetryPolicy}) while attempts remain,
 *       FAILED after the last one, and EXPIRED instead when the next attempt would come after the
 *       mail's expires-at.</li>
 * </ul>
 *
 * @param status            the new status
 * @param attemptsRemaining attempts left after this one, 0 or more
 * @param notBefore         UTC, earliest next attempt (for a terminal status, when it ended)
 * @param error             what last_error says, or null
 */
public record Disposition(MailStatus status, int attemptsRemaining, LocalDateTime notBefore, String error) {

    /**
     * @param outcome an attempted outcome (not {@link DeliveryOutcome.Verdict#EXPIRED})
     * @param policy  the backoff
     * @return the row's next state
     */
    public static Disposition after(DeliveryOutcome outcome, RetryPolicy policy) {
        int left = Math.max(0, outcome.attemptsRemaining() - 1);
        LocalDateTime ended = outcome.finishedAt();
        return switch (outcome.verdict()) {
            case SENT -> new Disposition(MailStatus.SENT, 0, ended, outcome.error());
            case PERMANENT -> new Disposition(MailStatus.FAILED, left, ended, outcome.error());
            case EXPIRED -> new Disposition(MailStatus.EXPIRED, outcome.attemptsRemaining(), ended, outcome.error());
            case TRANSIENT -> {
                if (left == 0) {
                    yield new Disposition(MailStatus.FAILED, 0, ended, outcome.error());
                }
                LocalDateTime next = policy.nextAttemptAt(ended, outcome.attemptsRemaining());
                if (outcome.expiresAt() != null && next.isAfter(outcome.expiresAt())) {
                    yield new Disposition(MailStatus.EXPIRED, left, ended, outcome.error()
                            + "; expires at " + outcome.expiresAt() + "Z, before the next attempt was due");
                }
                yield new Disposition(MailStatus.QUEUED, left, next, outcome.error());
            }
        };
    }
}
