package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.PostgresNotifications;
import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.server.control.QueueDatabase;
import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells the other servers of a shared queue that mail was enqueued, so that a server whose accounts can send
 * it starts claiming at once instead of at its next interval tick. On PostgreSQL only: after an enqueue
 * committed, {@link #announce()} sends {@code NOTIFY mailqueue_enqueued} with this server's name, and every
 * server {@link #listen(Runnable) listens} on one connection of its own and wakes its claimers for a
 * notification of another server (its own enqueues woke it already). Other databases have no such channel;
 * there the interval timer finds mail of other servers, as it still does here when a notification is lost
 * (PostgreSQL delivers them only to sessions listening at the commit), and when
 * {@code mailqueue.dispatch.wake-up=false} turns both ends off.
 *
 * <p>Announcements never wait in the enqueue's transaction: a {@code NOTIFY} inside it would take
 * PostgreSQL's global notification lock until its commit, one enqueue at a time. They are sent in a
 * transaction of their own on the container's executor, at most one every {@link #MIN_GAP_MILLIS} ms:
 * enqueues that commit while one is waiting to go share it.
 */
@ApplicationScoped
public class WakeUpChannel {

    /** The PostgreSQL channel; the payload is the enqueuing server's name ({@link ServerInstance#name()}). */
    public static final String CHANNEL = "mailqueue_enqueued";


    /**
     * Least time between two announcements of this server, ms: enqueues within it share one, so that a busy
     * server sends at most 20 a second, whatever its enqueue rate, and the others wake at most 50 ms late.
     */
    static final long MIN_GAP_MILLIS = 50;

    private static final Logger LOG = Logger.getLogger(WakeUpChannel.class.getName());

    @Inject
    @QueueDatabase
    DataSource dataSource;

    @Inject
    ServerInstance server;

    @Inject
    QueueSettings settings;

    @Resource
    ManagedScheduledExecutorService executor;

    @Resource
    ManagedThreadFactory threads;

    /** An announcement is queued on the executor and has not started yet. */
    private final AtomicBoolean pending = new AtomicBoolean();
    /** {@link System#nanoTime()} of the last announcement's start. */
    private volatile long lastNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(MIN_GAP_MILLIS);
    private volatile Boolean postgres;
    private PostgresNotifications listener;

    /**
     * Announces an enqueue that committed to the other servers (PostgreSQL only; elsewhere nothing). Returns
     * at once; a failure to announce is logged at FINE, as the other servers' timers find the mail anyway.
     */
    public void announce() {
        if (!settings.wakeUp() || !isPostgres() || !pending.compareAndSet(false, true)) {
            return;
        }
        long sinceLast = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastNanos);
        try {
            executor.schedule(this::notifyOthers, Math.max(0, MIN_GAP_MILLIS - sinceLast), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) { // the executor is shutting down
            pending.set(false);
        }
    }

    private void notifyOthers() {
        pending.set(false);
        lastNanos = System.nanoTime();
        try {
            PostgresNotifications.announce(dataSource, CHANNEL, server.name());
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "could not announce an enqueue to the other servers", e);
        }
    }

    /**
     * Starts listening for other servers' announcements, on PostgreSQL, on a thread of the container that
     * holds one connection of the data source for as long as the application runs, and connects again after
     * a failure (a restart, a failover to a standby) every second. Elsewhere does nothing.
     *
     * @param wake what to do when another server enqueued: wake this server's claimers; called on the
     *             listening thread, so it must return quickly
     */
    public synchronized void listen(Runnable wake) {
        if (listener != null || !settings.wakeUp() || !isPostgres()) {
            return;
        }
        listener = new PostgresNotifications(dataSource, CHANNEL, server.name(), wake);
        Thread thread = threads.newThread(listener);
        thread.setName("mailqueue-wake-up-listener");
        thread.start();
        LOG.info(() -> "listening on PostgreSQL channel " + CHANNEL + " for mail enqueued on other servers");
    }

    @PreDestroy
    synchronized void stop() {
        if (listener != null) {
            listener.stop();
        }
    }

    private boolean isPostgres() {
        Boolean known = postgres;
        if (known == null) {
            try (Connection c = dataSource.getConnection()) {
                known = DatabaseKind.of(c.getMetaData().getDatabaseProductName()) == DatabaseKind.POSTGRESQL;
                postgres = known;
            } catch (SQLException | RuntimeException e) {
                return false; // not known now: asked again next time
            }
        }
        return known;
    }
}
