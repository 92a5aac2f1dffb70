package dev.mailqueue.dispatch.boundary;

import dev.mailqueue.dispatch.control.DispatchSignal;
import dev.mailqueue.mail.control.MailsEnqueued;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Mail goes out when it is queued: once an enqueue's transaction has committed (a CDI transactional
 * observer, AFTER_SUCCESS: never for an enqueue that rolled back), it tells running claimers there is
 * more to claim ({@link DispatchSignal}) and asks the scheduler to start claimers. Requests that come
 * while one is under way count as one, so a burst of enqueues costs one start, and the enqueuing thread
 * never waits for it.
 */
@ApplicationScoped
public class DispatchWakeUp {

    @Inject
    DispatchSignal signal;

    @EJB
    DispatchScheduler scheduler;

    private final AtomicBoolean pending = new AtomicBoolean();

    void enqueued(@Observes(during = TransactionPhase.AFTER_SUCCESS) MailsEnqueued event) {
        signal.enqueued();
        if (pending.compareAndSet(false, true)) {
            scheduler.wake(); // sets a one-off timer and returns
        }
    }

    /** Called by the scheduler as it starts to act on a request. */
    void woken() {
        pending.set(false);
    }
}
