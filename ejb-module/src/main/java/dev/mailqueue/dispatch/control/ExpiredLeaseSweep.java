package dev.mailqueue.dispatch.control;

import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a claim of this server also takes back expired leases: at most once per dispatch interval
 * ({@code mailqueue.dispatch.interval.ms}) for the whole server. A lease runs out only when its claimer
 * died (a live one renews it), so rows of a dead server wait at most a lease time plus an interval,
 * and the other claims skip the look for them, which on PostgreSQL reads an index entry for every lease
 * set since the table was last vacuumed.
 */
@ApplicationScoped
public class ExpiredLeaseSweep {

    @Inject
    QueueSettings settings;

    /** Epoch ms of the last sweep; 0 before the first. */
    private final AtomicLong last = new AtomicLong();

    /**
     * @param now now
     * @return true (once per interval, to one caller) when this claim should take back expired leases
     */
    public boolean turn(Instant now) {
        long at = now.toEpochMilli();
        long previous = last.get();
        return at - previous >= settings.intervalMillis() && last.compareAndSet(previous, at);
    }
}
