package dev.mailqueue.queue.control;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A PostgreSQL notification channel between the servers of one queue: {@link #announce} sends one
 * ({@code pg_notify}), and an instance, run on a thread of its own, is the listening end: one connection of the
 * data source, {@code LISTEN}ing on the channel, read with PgJDBC's {@link PGConnection#getNotifications(int)}
 * (the container's connection unwrapped: the PostgreSQL library is shared with the application for this,
 * {@code liberty/db/postgresql.xml}). Loaded only on PostgreSQL, where that class is there. When the connection
 * fails it is closed and a new one listens after {@link #RECONNECT}; notifications sent meanwhile are lost.
 */
public final class PostgresNotifications implements Runnable {

    /** Wait before listening again after the connection failed (a restart or a failover takes seconds). */
    public static final Duration RECONNECT = Duration.ofSeconds(1);

    /** How long one read waits for a notification before it checks whether to stop, ms. */
    private static final int POLL_MILLIS = 1_000;

    private static final Logger LOG = Logger.getLogger(PostgresNotifications.class.getName());

    private final DataSource dataSource;
    private final String channel;
    private final String self;
    private final Runnable wake;
    private volatile boolean stopped;

    /**
     * @param dataSource the queue's data source (PostgreSQL)
     * @param channel    the channel to listen on: an SQL identifier of lower-case letters and underscores
     * @param self       this server's name: its own announcements are not a reason to wake (the payload)
     * @param wake       what to run when another server announced: called on the listening thread, so it must
     *                   return quickly
     */
    public PostgresNotifications(DataSource dataSource, String channel, String self, Runnable wake) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.self = self;
        this.wake = wake;
    }

    @Override
    public void run() {
        boolean failedBefore = false;
        while (!stopped) {
            try (Connection c = dataSource.getConnection(); Statement listen = c.createStatement()) {
                listen.execute("LISTEN " + channel);
                if (failedBefore) {
                    LOG.info(() -> "listening on channel " + channel + " again");
                    failedBefore = false;
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!stopped) {
                    PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
                    if (fromOthers(notifications)) {
                        wake.run();
                    }
                }
            } catch (LinkageError e) {
                LOG.log(Level.WARNING, "cannot read notifications on channel " + channel + ": the application does not see"
                        + " the PostgreSQL driver's classes (see liberty/db/postgresql.xml); the interval timer finds other"
                        + " servers' mail", e);
                return;
            } catch (SQLException | RuntimeException e) {
                if (!stopped) {
                    LOG.log(failedBefore ? Level.FINE : Level.WARNING, "listening on channel " + channel
                            + " failed; the interval timer finds other servers' mail meanwhile; trying again in "
                            + RECONNECT.toMillis() + " ms", e);
                    failedBefore = true;
                    pause();
                }
            }
        }
    }

    private boolean fromOthers(PGNotification[] notifications) {
        if (notifications == null) {
            return false;
        }
        for (PGNotification n : notifications) {
            if (!self.equals(n.getParameter())) {
                return true;
            }
        }
        return false;
    }

    private void pause() {
        try {
            Thread.sleep(RECONNECT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = true;
        }
    }

    /**
     * Sends a notification, delivered when the caller's transaction commits (at once without one), to every
     * session listening on {@code channel} then.
     *
     * @param dataSource the queue's data source (PostgreSQL)
     * @param channel    the channel
     * @param payload    the sending server's name
     * @throws SQLException when the database cannot be reached
     */
    public static void announce(DataSource dataSource, String channel, String payload) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, channel);
            notify.setString(2, payload);
            notify.execute();
        }
    }

    /** Ends the loop within one poll ({@value #POLL_MILLIS} ms); the connection goes back to the pool. */
    public void stop() {
        stopped = true;
    }
}
