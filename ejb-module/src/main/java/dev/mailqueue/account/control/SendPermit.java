package dev.mailqueue.account.control;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The answer of {@link AccountThrottle#acquire}: either leave to send now through the account (holding
 * a rate slot until {@link AccountThrottle#complete} or {@link AccountThrottle#release}), or when to
 * try again.
 *
 * @param account   the account asked
 * @param granted   true when the mail may be sent now
 * @param slot      the per-minute slot taken, -1 when none was needed (no per-minute limit)
 * @param dayStart  UTC midnight of the day counted, null when the account has no per-day limit; on a
 *                  refusal: set when the day's limit refused, null when the minute's did
 * @param retryTimes when not granted: UTC times at which the 1st, 2nd, ... waiting mail may expect
 *                   a slot, earliest first (an estimate; the next acquire decides); empty otherwise
 * @param window    the account's per-minute window ({@link Account#window}): how long a slot stays taken after
 *                  its send, and the step between the turns of mails that wait
 */
public record SendPermit(String account, boolean granted, int slot, Instant dayStart,
                         List<Instant> retryTimes, Duration window) {

    public SendPermit {
        retryTimes = List.copyOf(retryTimes);
    }

    /** A permit of an account whose per-minute limit counts real 60 s windows. */
    public SendPermit(String account, boolean granted, int slot, Instant dayStart, List<Instant> retryTimes) {
        this(account, granted, slot, dayStart, retryTimes, RateRules.WINDOW);
    }

    /** @return leave to send through an account without limits; nothing to give back */
    public static SendPermit unlimited(String account) {
        return new SendPermit(account, true, -1, null, List.of());
    }

    /** @return true when the permit holds shared rate state that complete or release must settle */
    public boolean holdsState() {
        return granted && (slot >= 0 || dayStart != null);
    }

    /**
     * @param waiting how many refused mails of the same account come before this one, 0 or more
     * @return when this mail should be due again: its turn in {@link #retryTimes}, cycling on by
     *         whole windows when more mails wait than slots free up; after a day's limit, the next
     *         day's start for all
     */
    public Instant retryAt(int waiting) {
        int n = retryTimes.size();
        if (n == 0) {
            throw new IllegalStateException("a granted permit has no retry time");
        }
        if (dayStart != null) {
            return retryTimes.get(0);
        }
        return retryTimes.get(waiting % n).plus(window.multipliedBy(waiting / n));
    }
}
