package dev.mailqueue.retention.control;

import dev.mailqueue.api.MailStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Which mails the retention job may delete: those in a final state ({@link #TERMINAL}: SENT, FAILED,
 * CANCELLED, EXPIRED) whose last recorded moment (created, not-before, last attempt, sent) lies
 * before the cutoff, i.e. more than {@code days} days ago. A live mail (QUEUED, SENDING) or one held
 * for review (HELD) is never deleted, however old; a state added later is kept until it is listed here.
 * The seed article deletes after 15 days whether sent or not; this queue's default is the same.
 */
public final class RetentionPolicy {

    /** The states whose rows may go; every other state is kept. */
    public static final List<MailStatus> TERMINAL =
            List.of(MailStatus.SENT, MailStatus.FAILED, MailStatus.CANCELLED, MailStatus.EXPIRED);

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
