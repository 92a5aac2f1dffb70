package dev.mailqueue.submission.control;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Failed SMTP logins per client address, and the lockout they lead to: {@code threshold} failures from one address
 * within {@code lockoutMillis} lock it out for {@code lockoutMillis}, during which every AUTH from it is refused
 * without its password being checked, so that guessing from one address goes no faster than {@code threshold}
 * guesses per lockout period whatever it does. Attempts refused during a lockout neither count nor extend it (a
 * legitimate client that keeps trying gets in when it ends). A lockout is reported once, when it begins
 * ({@code onLockout}: the log line and the metric), never per refused attempt.
 *
 * <p>Memory is bounded: at most {@code capacity} addresses are remembered, the one seen least recently forgotten
 * first. An attacker with more addresses than that can make the listener forget one of them early; each of its
 * addresses is still held to {@code threshold} guesses until forgotten, and the per-connection cap holds anyway.
 * Thread-safe (one lock; a login is rare next to the work it guards).
 */
public final class AddressLockout {

    private static final class Entry {
        int failures;
        long windowStart;
        long lockedUntil;
        boolean locked;
    }

    private final int threshold;
    private final long lockoutMillis;
    private final LongSupplier clock;
    private final Consumer<InetAddress> onLockout;
    private final Map<InetAddress, Entry> entries;

    /**
     * @param threshold     failures within the window that lock an address out, 1 or more
     * @param lockoutMillis how long a lockout lasts, and the window failures are counted in, ms
     * @param capacity      addresses remembered at once, 1 or more
     * @param clock         the time now, ms (e.g. {@code System::currentTimeMillis})
     * @param onLockout     told once when an address's lockout begins
     */
    public AddressLockout(int threshold, long lockoutMillis, int capacity, LongSupplier clock,
                          Consumer<InetAddress> onLockout) {
        this.threshold = threshold;
        this.lockoutMillis = lockoutMillis;
        this.clock = clock;
        this.onLockout = onLockout;
        this.entries = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<InetAddress, Entry> eldest) {
                return size() > capacity;
            }
        };
    }

    /** @return whether AUTH from this address is refused now */
    public synchronized boolean locked(InetAddress address) {
        Entry entry = current(address);
        return entry != null && entry.locked;
    }

    /**
     * Records a failed login (a wrong password or user) from this address.
     *
     * @return whether the address is locked out now
     */
    public boolean failed(InetAddress address) {
        boolean began;
        synchronized (this) {
            Entry entry = current(address);
            if (entry == null) {
                entry = new Entry();
                entry.windowStart = clock.getAsLong();
                entries.put(address, entry);
            }
            if (entry.locked) {
                return true;
            }
            entry.failures++;
            began = entry.failures >= threshold;
            if (began) {
                entry.locked = true;
                entry.lockedUntil = clock.getAsLong() + lockoutMillis;
            }
        }
        if (began) {
            onLockout.accept(address);
        }
        return began;
    }

    /** @return how many addresses are remembered now, for tests */
    synchronized int tracked() {
        return entries.size();
    }

    /** @return the address's entry, or null when it has none that still matters (its window or lockout passed) */
    private Entry current(InetAddress address) {
        Entry entry = entries.get(address);
        if (entry == null) {
            return null;
        }
        long now = clock.getAsLong();
        boolean over = entry.locked ? now >= entry.lockedUntil : now - entry.windowStart >= lockoutMillis;
        if (over) {
            entries.remove(address);
            return null;
        }
        return entry;
    }
}
