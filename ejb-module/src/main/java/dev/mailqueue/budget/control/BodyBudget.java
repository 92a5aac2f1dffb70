package dev.mailqueue.budget.control;

import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many request-body bytes the server reads and works on at once. A body is held several times over
 * while it becomes a mail (the JSON text, its decoded strings and attachment bytes, the rows written):
 * about five bytes of heap per body byte for a mail that is mostly attachment. Without a bound, eight
 * clients posting the largest legal request (16 MiB) at once ran a 512 MB heap out of memory; with one,
 * a request whose body does not fit waits for earlier ones to finish.
 *
 * <p>Counted in KiB (rounded up, at least 1), so that the budget fits a {@link Semaphore}. A body larger
 * than the whole budget takes all of it. Small bodies (a 1 KB mail) take a KiB and barge past a large one
 * that waits, so ordinary mail is not held up behind large requests.
 */
public final class BodyBudget {

    private final int totalKib;
    private final Semaphore kib;

    /** The least budget, bytes: 1 KiB. */
    public static final long MIN_BYTES = 1024;

    /** The greatest budget, bytes: about 2 TiB (the budget is counted in KiB permits of an int). */
    public static final long MAX_BYTES = (long) Integer.MAX_VALUE * 1024;

    /**
     * @param bytes the budget, bytes, {@link #MIN_BYTES} to {@link #MAX_BYTES}
     * @throws IllegalArgumentException when it is out of that range
     */
    public BodyBudget(long bytes) {
        if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
            throw new IllegalArgumentException("must be " + MIN_BYTES + " to " + MAX_BYTES + " bytes: " + bytes);
        }
        totalKib = (int) (bytes / 1024);
        kib = new Semaphore(totalKib);
    }

    /** A share of the budget; closing it gives it back (once). */
    public final class Share implements AutoCloseable {

        private int held;

        private Share(int held) {
            this.held = held;
        }

        @Override
        public void close() {
            if (held > 0) {
                kib.release(held);
                held = 0;
            }
        }
    }

    /**
     * @param bodyBytes  the body's size, bytes (its Content-Length; for a chunked body, the most it may be)
     * @param waitMillis how long to wait for the share, ms, 0 or more
     * @return the share, or empty when it did not come free in time
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Optional<Share> take(long bodyBytes, long waitMillis) throws InterruptedException {
        int wanted = (int) Math.min(totalKib, Math.max(1, (bodyBytes + 1023) / 1024));
        return kib.tryAcquire(wanted, waitMillis, TimeUnit.MILLISECONDS) ? Optional.of(new Share(wanted)) : Optional.empty();
    }

    /** @return KiB free now, for tests and diagnostics */
    public int freeKib() {
        return kib.availablePermits();
    }
}
