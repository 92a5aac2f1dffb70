package dev.mailqueue.account.control;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The arithmetic of the per-account rate limits, apart from the database that stores their state.
 *
 * <p><b>Per minute</b>: an account limited to N sends per minute has N slots. A send takes a free slot
 * before MAIL FROM and holds it until {@link #WINDOW} (60 s) after the server's last reply, so no
 * 60 s window ever holds more than N sends as the SMTP server sees them, whatever the number of
 * claimers and servers (a sliding window, not a fixed calendar minute). While the send is under way
 * the slot is held for {@link #IN_FLIGHT} more, so a server that dies mid-send cannot free it early.
 *
 * <p><b>Slow-down</b>: a reply of 421 or with an RFC 3463 enhanced status 4.7.x (the server's "too
 * much mail, slow down") halves the account's per-minute limit (at least 1), at most once per
 * {@link #SLOW_DOWN_QUIET}, since one burst of refusals over several connections is one signal. The
 * limit then grows back by a tenth of the configured limit (at least 1) per full minute without
 * another such reply, up to the configured limit: additive increase, multiplicative decrease, as TCP
 * congestion control does.
 *
 * <p><b>Per day</b>: sends counted per UTC calendar day; at the limit the account waits for the next
 * UTC midnight.
 */
public final class RateRules {

    /** The rolling window of a per-minute limit: 60 s, a real minute (the default and the longest). */
    public static final Duration WINDOW = Duration.ofSeconds(60);
    /** The shortest window an account may be given ({@code mailqueue.account.<name>.rate.window.ms}): 1 s. */
    public static final Duration MIN_WINDOW = Duration.ofSeconds(1);
    /** Extra hold of a slot while its send is under way (longer than any SMTP timeout should be). */
    public static final Duration IN_FLIGHT = Duration.ofMinutes(10);
    /** Slow-down signals this soon after the last decrease are taken as the same signal. */
    public static final Duration SLOW_DOWN_QUIET = Duration.ofSeconds(10);

    private RateRules() {
    }

    /**
     * The per-minute limit after slow-downs.
     *
     * @param limit the per-minute limit now in force, 1 or more
     * @param since when it was set (the last decrease or step up); null when never slowed
     */
    public record Slowed(int limit, Instant since) {
    }

    /**
     * @param configured the configured per-minute limit, 1 or more
     * @param slowed     the stored slowed-down limit, or null when the account runs at its configured limit
     * @param now        UTC now
     * @return the limit in force now, grown back by {@link #step} per full minute since it was last
     *         changed; null once it is back at the configured limit
     */
    public static Slowed recover(int configured, Slowed slowed, Instant now) {
        return recover(configured, slowed, now, WINDOW);
    }

    /**
     * @param configured the configured per-minute limit, 1 or more
     * @param slowed     the stored slowed-down limit, or null when the account runs at its configured limit
     * @param now        UTC now
     * @param window     the account's window ({@link #WINDOW} unless configured shorter)
     * @return the limit in force now, grown back by {@link #step} per full window since it was last changed;
     *         null once it is back at the configured limit
     */
    public static Slowed recover(int configured, Slowed slowed, Instant now, Duration window) {
        if (slowed == null || slowed.limit() >= configured) {
            return null;
        }
        long windows = Duration.between(slowed.since(), now).toMillis() / window.toMillis();
        if (windows <= 0) {
            return slowed;
        }
        long grown = slowed.limit() + windows * step(configured);
        return grown >= configured ? null
                : new Slowed((int) grown, slowed.since().plus(window.multipliedBy(windows)));
    }

    /**
     * @param configured the configured per-minute limit, 1 or more
     * @param slowed     the limit in force (after {@link #recover}), or null when at the configured limit
     * @param now        UTC now
     * @return the limit after a 421 / 4.7.x reply: half the limit in force, at least 1; unchanged when
     *         the last decrease was less than {@link #SLOW_DOWN_QUIET} ago
     */
    public static Slowed slowDown(int configured, Slowed slowed, Instant now) {
        int current = slowed == null ? configured : slowed.limit();
        if (slowed != null && slowed.since().plus(SLOW_DOWN_QUIET).isAfter(now)) {
            return slowed;
        }
        return new Slowed(Math.max(1, current / 2), now);
    }

    /** @return how much the limit grows back per quiet minute: a tenth of the configured limit, at least 1 */
    public static int step(int configured) {
        return Math.max(1, configured / 10);
    }

    /**
     * @param limit  sends allowed in any window now, 1 or more
     * @param freeAt per slot, the UTC time from which it is free
     * @param now    UTC now
     * @return how many sends the window allows now, 0 to {@code limit}
     */
    public static int freeSlots(int limit, List<Instant> freeAt, Instant now) {
        int busy = 0;
        for (Instant t : freeAt) {
            if (t.isAfter(now)) {
                busy++;
            }
        }
        return Math.max(0, Math.min(limit, freeAt.size()) - busy);
    }

    /**
     * Picks a per-minute slot.
     *
     * @param limit  sends allowed in any 60 s window now, 1 or more (at most {@code freeAt.size()})
     * @param freeAt per slot (index = slot number), the UTC time from which it is free
     * @param now    UTC now
     * @return the number of a free slot, or -1 when {@code limit} slots are busy
     */
    public static int freeSlot(int limit, List<Instant> freeAt, Instant now) {
        int busy = 0;
        int free = -1;
        for (int slot = 0; slot < freeAt.size(); slot++) {
            if (freeAt.get(slot).isAfter(now)) {
                busy++;
            } else if (free < 0) {
                free = slot;
            }
        }
        return busy >= limit ? -1 : free;
    }

    /**
     * @param limit  sends allowed in any 60 s window now, 1 or more
     * @param freeAt per slot, the UTC time from which it is free
     * @param now    UTC now
     * @return when refused mails may expect a slot, earliest first: the busy slots' free times from
     *         the one whose release brings the busy count below {@code limit}; a slot whose send is
     *         under way is expected to free {@link #WINDOW} after it was taken, not at its in-flight hold
     */
    public static List<Instant> retryTimes(int limit, List<Instant> freeAt, Instant now) {
        return retryTimes(limit, freeAt, now, WINDOW);
    }

    /**
     * @param limit  sends allowed in any window now, 1 or more
     * @param freeAt per slot, the UTC time from which it is free
     * @param now    UTC now
     * @param window the account's window ({@link #WINDOW} unless configured shorter)
     * @return as {@link #retryTimes(int, List, Instant)}, with the account's window in place of 60 s
     */
    public static List<Instant> retryTimes(int limit, List<Instant> freeAt, Instant now, Duration window) {
        List<Instant> busy = new ArrayList<>();
        for (Instant t : freeAt) {
            if (t.isAfter(now.plus(window))) {
                busy.add(t.minus(IN_FLIGHT));
            } else if (t.isAfter(now)) {
                busy.add(t);
            }
        }
        busy.sort(null);
        int skip = Math.max(0, busy.size() - limit);
        List<Instant> times = new ArrayList<>(busy.subList(Math.min(skip, busy.size()), busy.size()));
        return times.isEmpty() ? List.of(now.plus(window)) : times;
    }

    /** @return UTC midnight starting the day of {@code now} */
    public static Instant dayStart(Instant now) {
        return now.truncatedTo(ChronoUnit.DAYS);
    }

    /** @return UTC midnight ending the day of {@code now} */
    public static Instant nextDay(Instant now) {
        return dayStart(now).plus(Duration.ofDays(1));
    }
}
