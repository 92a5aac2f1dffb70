package dev.mailqueue.dispatch.boundary;

import dev.mailqueue.dispatch.control.DispatchSignal;
import dev.mailqueue.dispatch.control.WakeUpChannel;
import dev.mailqueue.mail.control.MailsEnqueued;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Mail goes out when it is queued: once an enqueue's transaction has committed (a CDI transactional
 * observer, AFTER_SUCCESS: never for an enqueue that rolled back), it tells running claimers there is
 * more to claim ({@link DispatchSignal}) and, when the mail is due before the next timer tick, has the
 * scheduler start claimers. At most one wake-up runs at a time: enqueues that commit while one is under
 * way make it run once more when it ends, so a burst of enqueues costs one or two passes, holds at most
 * one timer thread, and the enqueuing thread never waits for it. The other servers of a shared queue hear of
 * the enqueue through the {@link WakeUpChannel} (PostgreSQL) and wake their claimers the same way
 * ({@link #notified()}).
 */
@ApplicationScoped
public class DispatchWakeUp {

    @Inject
    DispatchSignal signal;

    @Inject
    QueueSettings settings;

    @EJB
    DispatchScheduler scheduler;

    @Inject
    WakeUpChannel channel;

    /** A wake-up's timer is set or its pass runs. */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** An enqueue committed since the running pass began. */
    private final AtomicBoolean again = new AtomicBoolean();

    void enqueued(@Observes(during = TransactionPhase.AFTER_SUCCESS) MailsEnqueued event) {
        if (event.earliestDue().isAfter(Instant.now().plusMillis(settings.intervalMillis()))) {
            signal.enqueued();
            return; // the interval timer finds it when it falls due
        }
        channel.announce(); // returns at once
        notified();
    }

    /**
     * Mail that is due was enqueued, here or on another server ({@link WakeUpChannel}): tells running claimers
     * and has the scheduler start claimers. Returns at once.
     */
    public void notified() {
        signal.enqueued();
        again.set(true);
        if (scheduled.compareAndSet(false, true)) {
            scheduler.wake(); // sets a one-off timer and returns
        }
    }

    /**
     * Runs the scheduler's pass for a wake-up, and again as long as enqueues committed during the last
     * pass (an enqueue that comes as the last pass ends sets a new timer instead).
     *
     * @param pass the scheduler's start of claimers
     */
    void serve(Runnable pass) {
        do {
            again.set(false);
            try {
                pass.run();
            } finally {
                scheduled.set(false); // a pass that failed must not block every later wake-up
            }
        } while (again.get() && scheduled.compareAndSet(false, true));
    }
}
