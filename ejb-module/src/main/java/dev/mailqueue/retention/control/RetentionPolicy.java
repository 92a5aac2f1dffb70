package dev.mailqueue.retention.control;

import dev.mailqueue.api.MailStatus;

import java.time.LocalDateTime;
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

    /** Days kept by default: 15, as in the seed article. */
    public static final int DEFAULT_DAYS = 15;

    /**
     * The JPQL condition on {@code m} (a MailMessage) with parameters {@code terminal} and {@code cutoff}:
     * final state, and every timestamp of the row before the cutoff. Checked again when deleting.
     */
    static final String DELETABLE = """
            m.status IN :terminal AND m.createdAt < :cutoff AND m.notBefore < :cutoff
              AND (m.lastAttemptAt IS NULL OR m.lastAttemptAt < :cutoff)
              AND (m.sentAt IS NULL OR m.sentAt < :cutoff)""";

    private RetentionPolicy() {
    }

    /**
     * @param now  UTC now
     * @param days days to keep, 1 or more
     * @return the cutoff: rows whose last moment is before it may go
     */
    public static LocalDateTime cutoff(LocalDateTime now, int days) {
        return now.minusDays(days);
    }

    /**
     * @return the value as an int of at least {@code min}, or {@code fallback} when blank
     * @throws IllegalArgumentException naming the job parameter when the value is not such a number
     */
    static int intAtLeast(int min, String name, String value, int fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value.strip());
            if (parsed < min) {
                throw new IllegalArgumentException("job parameter " + name + " must be at least " + min + ", was " + value);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("job parameter " + name + " must be a whole number, was " + value, e);
        }
    }
}
