package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;

import java.time.LocalDateTime;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When a transiently failed mail is tried again: exponential backoff with jitter, as Postfix does it
 * (its {@code minimal_backoff_time} 300 s doubling up to {@code maximal_backoff_time} 4,000 s). The
 * n-th failed attempt waits {@code minDelay * 2^(n-1)}, capped at {@code maxDelay}, then spread by
 * ±{@code jitter} of itself and kept within [minDelay, maxDelay], so mails that failed together (an
 * SMTP outage) do not all come back in the same instant. The seed's attempts remaining bound it: after
 * the last attempt the mail is FAILED, so a bad mail cannot poison the queue by being retried forever.
 *
 * @param minDelayMillis delay after the first failed attempt in ms, 0 or more
 * @param maxDelayMillis the longest delay in ms, at least {@code minDelayMillis}
 * @param jitter         spread as a fraction of the delay, 0 (none) to 1
 * @param maxAttempts    attempts a mail gets when queued, 1 or more; with attempts remaining it tells
 *                       which attempt failed
 */
public record RetryPolicy(long minDelayMillis, long maxDelayMillis, double jitter, int maxAttempts) {

    /** @throws IllegalArgumentException when a value is out of its range */
    public RetryPolicy {
        if (minDelayMillis < 0 || maxDelayMillis < minDelayMillis) {
            throw new IllegalArgumentException("backoff delays must satisfy 0 <= min <= max, were "
                    + minDelayMillis + " and " + maxDelayMillis + " ms");
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("backoff jitter must be within [0, 1], was " + jitter);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("max attempts must be 1 or more, was " + maxAttempts);
        }
    }

    /**
     * @param attemptsRemaining attempts left before the failed one, 1 or more
     * @return {@link MailStatus#QUEUED} while attempts remain after this one, else {@link MailStatus#FAILED}
     */
    public MailStatus statusAfterFailure(int attemptsRemaining) {
        return attemptsRemaining > 1 ? MailStatus.QUEUED : MailStatus.FAILED;
    }

    /**
     * @param failedAt          UTC, when the failed attempt ended
     * @param attemptsRemaining attempts left before the failed one, 1 or more
     * @return UTC, the earliest time of the next attempt
     */
    public LocalDateTime nextAttemptAt(LocalDateTime failedAt, int attemptsRemaining) {
        return failedAt.plusNanos(delayMillis(attemptsRemaining, ThreadLocalRandom.current().nextDouble()) * 1_000_000L);
    }

    /**
     * @param attemptsRemaining attempts left before the failed one; {@code maxAttempts - attemptsRemaining + 1}
     *                          is the number of the attempt that failed (1 if the count was reset since)
     * @param random            a number in [0, 1) that places the delay within its jitter
     * @return the delay in ms, within [minDelayMillis, maxDelayMillis]
     */
    public long delayMillis(int attemptsRemaining, double random) {
        int failed = Math.max(1, maxAttempts - attemptsRemaining + 1);
        double base = minDelayMillis * Math.pow(2, Math.min(failed - 1, 62));
        double spread = Math.min(base, maxDelayMillis) * (1 + jitter * (2 * random - 1));
        return Math.round(Math.max(minDelayMillis, Math.min(maxDelayMillis, spread)));
    }
}
