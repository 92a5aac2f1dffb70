package dev.mailqueue.submission.control;

import org.subethamail.smtp.server.Session;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads SMTP sessions run on. SubEthaSMTP hands each accepted connection to an executor and, when the
 * executor refuses it, logs a stack trace and drops the connection without a reply. This pool has a thread for
 * every connection SubEthaSMTP may accept at once ({@code threads}), so it does not refuse: the answer to a full
 * listener is {@link SubmissionSessions}'s {@code 421 4.3.2}. A thread that is still returning from the session before
 * it while the next connection arrives is waited for, briefly, instead of refusing. It also tells each session's thread
 * which session it serves ({@link SubmissionSessions#current()}), which is how EHLO learns whether this client may see
 * AUTH.
 */
public final class SessionPool extends ThreadPoolExecutor {

    /** How long a new connection waits for a thread that is just finishing the session before it. */
    static final long HANDOFF_SECONDS = 5;

    /**
     * @param threads the most threads at once: every connection SubEthaSMTP may accept at once
     * @param factory makes the threads (the container's managed thread factory)
     */
    public SessionPool(int threads, ThreadFactory factory) {
        super(0, threads, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), factory, (task, pool) -> {
            try {
                if (pool.isShutdown() || !pool.getQueue().offer(task, HANDOFF_SECONDS, TimeUnit.SECONDS)) {
                    throw new RejectedExecutionException("no SMTP session thread came free");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RejectedExecutionException("interrupted", e);
            }
        });
    }

    @Override
    protected void beforeExecute(Thread thread, Runnable task) {
        SubmissionSessions.serving(task instanceof Session session ? session : null);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable failure) {
        SubmissionSessions.serving(null);
    }
}
