package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;

import java.time.LocalDateTime;

/**
 * Decides what a failed attempt leads to: QUEUED again after a fixed delay while attempts remain, or
 * FAILED when this was the last one (the seed's AttemptsRemaining, so a bad mail cannot poison the
 * queue by being retried forever).
 *
 * @param retryDelayMillis delay before the next attempt in ms, 0 or more
 */
public record RetryPolicy(long retryDelayMillis) {

    /**
     * @param attemptsRemaining attempts left before the failed one, 1 or more
     * @return {@link MailStatus#QUEUED} while attempts remain after this one, else {@link MailStatus#FAILED}
     */
    public MailStatus statusAfterFailure(int attemptsRemaining) {
        return attemptsRemaining > 1 ? MailStatus.QUEUED : MailStatus.FAILED;
    }

    /**
     * @param failedAt UTC, when the failed attempt ended
     * @return UTC, the earliest time of the next attempt
     */
    public LocalDateTime nextAttemptAt(LocalDateTime failedAt) {
        return failedAt.plusNanos(retryDelayMillis * 1_000_000L);
    }
}
