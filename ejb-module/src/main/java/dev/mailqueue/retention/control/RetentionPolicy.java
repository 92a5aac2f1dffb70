package dev.mailqueue.retention.control;

import java.time.Duration;
import java.time.Instant;

/**
 * When the retention job may delete a mail: once it is finished in a status
 * {@link dev.mailqueue.queue.control.MailLifecycle#RETAINED_UNTIL_CUTOFF} names, and both its enqueue and its end
 * lie before the cutoff, i.e. more than {@code days} days ago ({@code OperatorStore.finishedBefore} reads it so). A
 * live mail (QUEUED, SENDING) or one held for review (HELD) is never deleted, however old. The seed article deletes
 * after 15 days whether sent or not; this queue's default is the same.
 */
public final class RetentionPolicy {

    private RetentionPolicy() {
    }

    /**
     * @param now  now
     * @param days days to keep, 1 or more
     * @return the cutoff: rows whose last moment is before it may go
     */
    public static Instant cutoff(Instant now, int days) {
        return now.minus(Duration.ofDays(days));
    }

}
