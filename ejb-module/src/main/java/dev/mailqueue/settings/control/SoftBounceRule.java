package dev.mailqueue.settings.control;

import java.time.Duration;

/**
 * When soft bounces suppress an address: a report that a server gave up on it (RFC 3464
 * {@code Action: failed} with a 4.x.x status, e.g. 4.2.2 mailbox full, 4.4.7 message expired) counts
 * once; the {@code limit}-th such bounce within {@code window} puts it on the suppression list, since an
 * address that keeps failing for weeks is as dead to a sender as one that does not exist.
 *
 * @param limit  soft bounces that suppress, 1 to 1,000; 0 means soft bounces never suppress
 * @param window how far back they are counted, 1 day or more
 */
public record SoftBounceRule(int limit, Duration window) {

    /** The rule that never suppresses on soft bounces. */
    public static final SoftBounceRule NEVER = new SoftBounceRule(0, Duration.ofDays(1));

    /** @throws IllegalArgumentException when limit or window is out of range */
    public SoftBounceRule {
        if (limit < 0 || limit > 1000) {
            throw new IllegalArgumentException("limit must be 0 to 1000, was " + limit);
        }
        if (window.compareTo(Duration.ofDays(1)) < 0) {
            throw new IllegalArgumentException("window must be 1 day or more, was " + window);
        }
    }
}
