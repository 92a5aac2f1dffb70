package dev.mailqueue.settings.control;

import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When a transiently failed mail is tried again: exponential backoff with jitter, as Postfix does it
 * (its {@code minimal_backoff_time} 300 s doubling up to {@code maximal_backoff_time} 4,000 s). The
 * n-th failed attempt waits {@code minDelay * 2^(n-1)}, capped at {@code maxDelay}, and that wait is
 * then spread evenly over ±{@code jitter} of itself, so mails that failed together (an SMTP outage) do
 * not all come back in the same instant: with the defaults the first wait lies in [225 s, 375 s] and
 * the longest in [3,000 s, 5,000 s]. The seed's attempts remaining bound it: after the last attempt the
 * mail is FAILED, so a bad mail cannot poison the queue by being retried forever.
 *
 * @param minDelayMillis delay after the first failed attempt in ms, 0 or more
 * @param maxDelayMillis the longest delay before jitter in ms, at least {@code minDelayMillis}
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
     * @param failedAt          when the failed attempt ended
     * @param attemptsRemaining attempts left before the failed one, 1 or more
     * @return the earliest time of the next attempt
     */
    public Instant nextAttemptAt(Instant failedAt, int attemptsRemaining) {
        return failedAt.plusMillis(delayMillis(attemptsRemaining, ThreadLocalRandom.current().nextDouble()));
    }

    /**
     * @param attemptsRemaining attempts left before the failed one; {@code maxAttempts - attemptsRemaining + 1}
     *                          is the number of the attempt that failed (1 if the count was reset since)
     * @param random            a number in [0, 1) that places the delay within its jitter, evenly
     * @return the delay in ms: the capped exponential delay d, spread to [d·(1−jitter), d·(1+jitter))
     */
    public long delayMillis(int attemptsRemaining, double random) {
        int failed = Math.max(1, maxAttempts - attemptsRemaining + 1);
        double base = Math.min(maxDelayMillis, minDelayMillis * Math.pow(2, Math.min(failed - 1, 62)));
        return Math.max(0, Math.round(base * (1 + jitter * (2 * random - 1))));
    }
}
