package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventRecord;
import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The delivery events as the mail store keeps them: read out of the mails' log (MAIL_ATTEMPT, by {@link LogEvents}),
 * by mail, by id, or after a position in an order that no late commit can pass. Where each publisher stands in
 * that order is the publisher's own business (the webhook feature keeps it). Every method runs in the caller's
 * transaction.
 *
 * <p>A position:
 * <ul>
 *   <li>PostgreSQL: a log row carries its transaction's id (TX). A read takes the horizon, the oldest transaction
 *       still running ({@code pg_snapshot_xmin}); every transaction below it has ended, so no row can still
 *       appear there. It takes the rows with {@code POSITION <= TX < horizon} and goes on from the horizon
 *       (a read stopped by its limit goes on from the first transaction it left, and takes a transaction whole);</li>
 *   <li>Derby and MariaDB: log ids are handed out while the writing transaction holds the event clock to its
 *       commit ({@link AttemptLog}), so they are in commit order: a read takes the rows above the position, and
 *       goes on from the last id read.</li>
 * </ul>
 * A reader that starts now starts at the current horizon (the newest id, {@link #start}): it gets no history.
 */
@ApplicationScoped
public class EventStore {

    /** PostgreSQL: transaction ids a read looks at in its first window; doubled for each window that has room. */
    static final long WINDOW = 1L << 14;

    /** PostgreSQL: most windows of one read; the last one reaches the horizon. */
    static final int WINDOWS = 24;

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables
     * @return a store on them, for use outside a container
     */
    public static EventStore on(QueueTables tables) {
        EventStore store = new EventStore();
        store.tables = tables;
        return store;
    }

    /**
     * The events one read after a position took.
     *
     * @param events the events, in id order
     * @param to     where the next read goes on from; the position read after when nothing was taken
     * @param more   true when the read stopped at its limit: more events may be waiting
     */
    public record Slice(List<EventRecord> events, long to, boolean more) {

        /** Copies the events. */
        public Slice {
            events = List.copyOf(events);
        }
    }

    /**
     * @return where a reader that starts now starts: the horizon on PostgreSQL (a transaction id), the newest log
     *         id elsewhere
     * @throws StoreException when the database fails
     */
    public long start() {
        try (Connection c = tables.connect()) {
            return tables.kind(c) == DatabaseKind.POSTGRESQL ? horizon(c)
                    : single(c, "SELECT COALESCE(MAX(ID), 0) FROM MAIL_ATTEMPT");
        } catch (SQLException e) {
            throw new StoreException("could not find where the delivery events stand", e);
        }
    }

    /**
     * Reads the events after a position. Nothing is written.
     *
     * @param position where the reader stands ({@link #start}, or a slice's {@link Slice#to})
     * @param limit    most log rows, 1 or more (on PostgreSQL a transaction that wrote more is taken whole)
     * @return the events and where the reader goes on from
     * @throws IllegalArgumentException when {@code limit} is below 1
     * @throws StoreException           when the database fails
     */
    public Slice after(long position, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be 1 or more, was " + limit);
        }
        try (Connection c = tables.connect()) {
            DatabaseKind kind = tables.kind(c);
            Taken taken = kind == DatabaseKind.POSTGRESQL ? byTransaction(c, position, limit)
                    : byId(c, kind, position, limit);
            return new Slice(LogEvents.of(c, taken.rows()), taken.to(), taken.more());
        } catch (SQLException e) {
            throw new StoreException("could not read the delivery events after position " + position, e);
        }
    }

    /** Log rows a read takes, where the reader goes after them, and whether the limit stopped it. */
    private record Taken(List<LogEvents.Row> rows, long to, boolean more) {
    }

    /** Derby, MariaDB: the rows above the last id taken, in id order. */
    private static Taken byId(Connection c, DatabaseKind kind, long position, int limit) throws SQLException {
        List<LogEvents.Row> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(kind.firstRows("SELECT " + LogEvents.COLUMNS
                + " FROM MAIL_ATTEMPT a WHERE a.ID > ? ORDER BY a.ID", limit))) {
            s.setLong(1, position);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(LogEvents.row(r, 1));
                }
            }
        }
        return new Taken(rows, rows.isEmpty() ? position : rows.get(rows.size() - 1).id(), rows.size() == limit);
    }

    /**
     * PostgreSQL: the rows with an event of the transactions from the position to the horizon, looked for in windows
     * of transaction ids that double while they find room (the BRIN index on TX keeps each to its part of the
     * table), so that a reader far behind costs a read of about its limit, not of everything it is behind.
     */
    private static Taken byTransaction(Connection c, long position, int limit) throws SQLException {
        long horizon = horizon(c);
        List<LogEvents.Row> taken = new ArrayList<>();
        long low = position;
        long window = WINDOW;
        for (int i = 0; low < horizon; i++) {
            long high = i + 1 == WINDOWS || horizon - low <= window ? horizon : low + window;
            int room = limit - taken.size();
            List<long[]> tx = new ArrayList<>();
            List<LogEvents.Row> rows = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT " + LogEvents.COLUMNS + ", a.TX FROM MAIL_ATTEMPT a"
                    + " WHERE a.TX >= ? AND a.TX < ? AND " + LogEvents.HAS_EVENT + " ORDER BY a.TX, a.ID LIMIT " + (room + 1))) {
                s.setLong(1, low);
                s.setLong(2, high);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        rows.add(LogEvents.row(r, 1));
                        tx.add(new long[]{r.getLong(LogEvents.COLUMN_COUNT + 1)});
                    }
                }
            }
            if (rows.size() > room) {
                long stop = tx.get(room)[0];
                for (int k = 0; k < room && tx.get(k)[0] < stop; k++) {
                    taken.add(rows.get(k));
                }
                if (!taken.isEmpty()) {
                    return new Taken(taken, stop, true);
                }
                try (PreparedStatement s = c.prepareStatement("SELECT " + LogEvents.COLUMNS + " FROM MAIL_ATTEMPT a"
                        + " WHERE a.TX = ? AND " + LogEvents.HAS_EVENT + " ORDER BY a.ID")) {
                    s.setLong(1, stop);
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            taken.add(LogEvents.row(r, 1));
                        }
                    }
                }
                return new Taken(taken, stop + 1, true);
            }
            taken.addAll(rows);
            low = high;
            window = Math.min(window * 2, Long.MAX_VALUE / 4);
        }
        return new Taken(taken, Math.max(position, horizon), false);
    }

    /** PostgreSQL: the oldest transaction still running (or the next one): every one below it has ended. */
    private static long horizon(Connection c) throws SQLException {
        return single(c, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint");
    }

    private static long single(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }

    /**
     * @param mailId a mail
     * @return its events, in id order (those of its log rows before V13 included, as NOTED rows)
     * @throws StoreException when the database fails
     */
    public List<EventRecord> eventsOf(long mailId) {
        try (Connection c = tables.connect()) {
            return LogEvents.ofMail(c, mailId);
        } catch (SQLException e) {
            throw new StoreException("could not read the events of mail " + mailId, e);
        }
    }

    /**
     * @param ids event ids, any number
     * @return the events among them whose log row is still there, by id
     * @throws StoreException when the database fails
     */
    public Map<Long, EventRecord> byId(List<Long> ids) {
        try (Connection c = tables.connect()) {
            return LogEvents.byId(c, ids);
        } catch (SQLException e) {
            throw new StoreException("could not read " + ids.size() + " delivery events by id", e);
        }
    }

    /**
     * @param eventId an event's id
     * @return the id of the log row (MAIL_ATTEMPT.ID) that publishes it
     */
    public static long attemptOf(long eventId) {
        return eventId / LogEvents.PARTS;
    }
}
