package dev.mailqueue.dispatch.control;

import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the enqueues committed on this server, so that a claimer about to end (its claim found
 * nothing) can tell that mail was enqueued while it claimed, and claim once more.
 */
@ApplicationScoped
public class DispatchSignal {

    private final AtomicLong generation = new AtomicLong();

    /** Called after an enqueue committed. */
    public void enqueued() {
        generation.incrementAndGet();
    }

    /** @return a number that changes with every committed enqueue */
    public long generation() {
        return generation.get();
    }
}
