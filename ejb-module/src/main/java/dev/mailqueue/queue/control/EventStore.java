package dev.mailqueue.queue.control;

import dev.mailqueue.api.WebhookDelivery;
import dev.mailqueue.api.EventRecord;
import dev.mailqueue.api.EventType;
import dev.mailqueue.queue.entity.Texts;
import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiPredicate;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * The publishers' side of the delivery events, which are the mails' log (MAIL_ATTEMPT, read by {@link LogEvents}):
 * where each publisher stands in it (EVENT_CURSOR), the webhook deliveries that could not go with the cursor
 * (WEBHOOK_DELIVERY), each endpoint's health (WEBHOOK_ENDPOINT) and the lease of the webhook work (WORK_LEASE).
 * Every method runs in the caller's transaction.
 *
 * <p>A publisher reads the log by a cursor that no late commit can pass, with one write per publisher and step,
 * none per event:
 * <ul>
 *   <li>PostgreSQL: a log row carries its transaction's id (TX). A read takes the horizon, the oldest transaction
 *       still running ({@code pg_snapshot_xmin}); every transaction below it has ended, so no row can still
 *       appear there. It takes the rows with {@code POSITION <= TX < horizon} and moves the cursor to the horizon
 *       (a read stopped by its limit moves it to the first transaction it left, and takes a transaction whole);</li>
 *   <li>Derby and MariaDB: log ids are handed out while the writing transaction holds the event clock to its
 *       commit ({@link AttemptLog}), so they are in commit order: a read takes the rows above the cursor, and
 *       the cursor becomes the last id read.</li>
 * </ul>
 * A publisher seen for the first time starts at the current horizon (the newest id): it gets no history.
 *
 * <p>Webhook deliveries: an endpoint's events go straight from its cursor to the receiver; a row in
 * WEBHOOK_DELIVERY is kept only for an event that failed (backing off, or given up: FAILED), or that waits behind
 * one (parked: no attempt yet), so that a mail's events still arrive in order and none is lost. A delivered
 * parked event's row is deleted.
 */
@ApplicationScoped
public class EventStore {

    /** The cursor of the Jakarta Messaging topic. */
    public static final String TOPIC = "topic";

    /** PostgreSQL: transaction ids a read looks at in its first window; doubled for each window that has room. */
    static final long WINDOW = 1L << 14;

    /** PostgreSQL: most windows of one read; the last one reaches the horizon. */
    static final int WINDOWS = 24;

    /**
     * An endpoint's parked deliveries that are due, in event order, less those whose mail has an earlier one that
     * is still backing off. {@code ?}s: endpoint, now, now.
     */
    static final String DUE = "SELECT d.EVENT_ID, d.ATTEMPTS, d.CREATED_AT FROM WEBHOOK_DELIVERY d"
            + " WHERE d.ENDPOINT = ? AND d.STATUS = 'PENDING' AND d.NEXT_ATTEMPT_AT <= ? AND NOT EXISTS"
            + " (SELECT 1 FROM WEBHOOK_DELIVERY p WHERE p.ENDPOINT = d.ENDPOINT AND p.MAIL_ID = d.MAIL_ID"
            + " AND p.EVENT_ID < d.EVENT_ID AND p.STATUS = 'PENDING' AND p.NEXT_ATTEMPT_AT > ?) ORDER BY d.EVENT_ID";

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
     * @param endpoint a webhook endpoint's name
     * @return the name of its cursor
     */
    public static String webhook(String endpoint) {
        return "webhook:" + endpoint;
    }

    /**
     * The events a publisher takes in one step.
     *
     * @param publisher the cursor's name
     * @param from      where the cursor stood
     * @param to        where it goes once the events are out ({@link #advance}); {@code from} when nothing was read
     * @param more      true when the read stopped at its limit: more events may be waiting
     * @param events    the events, in id order
     */
    public record Step(String publisher, long from, long to, boolean more, List<EventRecord> events) {

        /** Copies the events. */
        public Step {
            events = List.copyOf(events);
        }

        /** @return true when the cursor moves */
        public boolean moves() {
            return to != from;
        }
    }

    /**
     * Reads the events after a publisher's cursor; creates the cursor at the horizon for a publisher seen for the
     * first time (an empty batch). Nothing is written for the events: the caller hands them on, then moves the
     * cursor ({@link #advance}), in a transaction of its own; a crash in between hands them on again.
     *
     * @param publisher its cursor, {@value #TOPIC} or {@link #webhook}, at most 80 characters
     * @param limit     most log rows, 1 or more (on PostgreSQL a transaction that wrote more is taken whole)
     * @param now       now, for a new cursor
     * @return the batch
     * @throws StoreException when the database fails
     */
    public Step read(String publisher, int limit, Instant now) {
        try (Connection c = tables.connect()) {
            return read(c, tables.dialect(c).kind(), publisher, limit, now);
        } catch (SQLException e) {
            throw new StoreException("could not read the delivery events after cursor " + publisher, e);
        }
    }

    /**
     * Moves a publisher's cursor, unless another server moved it meanwhile.
     *
     * @param batch what the publisher handed on
     * @param now   now
     * @return true when the cursor moved
     * @throws StoreException when the database fails
     */
    public boolean advance(Step batch, Instant now) {
        if (!batch.moves()) {
            return false;
        }
        try (Connection c = tables.connect()) {
            return advance(c, batch, now);
        } catch (SQLException e) {
            throw new StoreException("could not move cursor " + batch.publisher(), e);
        }
    }

    private static boolean advance(Connection c, Step batch, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE EVENT_CURSOR SET POSITION = ?, UPDATED_AT = ?"
                + " WHERE NAME = ? AND POSITION = ?")) {
            s.setLong(1, batch.to());
            SqlTime.set(s, 2, now);
            s.setString(3, batch.publisher());
            s.setLong(4, batch.from());
            return s.executeUpdate() == 1;
        }
    }

    private Step read(Connection c, DatabaseKind kind, String publisher, int limit, Instant now) throws SQLException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be 1 or more, was " + limit);
        }
        Long position = null;
        try (PreparedStatement s = c.prepareStatement("SELECT POSITION FROM EVENT_CURSOR WHERE NAME = ?")) {
            s.setString(1, publisher);
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    position = r.getLong(1);
                }
            }
        }
        boolean byTransaction = kind == DatabaseKind.POSTGRESQL;
        if (position == null) {
            long start = byTransaction ? horizon(c) : single(c, "SELECT COALESCE(MAX(ID), 0) FROM MAIL_ATTEMPT");
            try (PreparedStatement s = c.prepareStatement("INSERT INTO EVENT_CURSOR (NAME, POSITION, UPDATED_AT)"
                    + " VALUES (?, ?, ?)")) {
                s.setString(1, publisher);
                s.setLong(2, start);
                SqlTime.set(s, 3, now);
                s.executeUpdate();
            }
            return new Step(publisher, start, start, false, List.of());
        }
        Taken taken = byTransaction ? byTransaction(c, position, limit) : byId(c, kind, position, limit);
        return new Step(publisher, position, taken.to(), taken.more(), LogEvents.of(c, taken.rows()));
    }

    /** Log rows a read takes, where the cursor goes after them, and whether the limit stopped it. */
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
     * PostgreSQL: the rows with an event of the transactions from the cursor to the horizon, looked for in windows
     * of transaction ids that double while they find room (the BRIN index on TX keeps each to its part of the
     * table), so that a cursor far behind costs a read of about its limit, not of everything it is behind.
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
     * A webhook endpoint's step from its cursor.
     *
     * @param batch   the events after its cursor that it wants, in id order
     * @param waiting the mails among them that have a parked delivery pending for it: their events must wait
     *                behind it ({@link Parked#behind})
     */
    public record EndpointStep(Step batch, Set<Long> waiting) {

        /** Copies the set. */
        public EndpointStep {
            waiting = Set.copyOf(waiting);
        }
    }

    /**
     * Reads the events after an endpoint's cursor, as {@link #read}, and keeps those it wants.
     *
     * @param endpoint the endpoint
     * @param wants    whether it wants an event of a type and campaign (null: the mail has none)
     * @param limit    most log rows, 1 or more
     * @param now      now
     * @return the batch; hand it back with what became of its events to {@link #pass}
     * @throws StoreException when the database fails
     */
    public EndpointStep next(String endpoint, BiPredicate<EventType, String> wants, int limit, Instant now) {
        try (Connection c = tables.connect()) {
            Step all = read(c, tables.dialect(c).kind(), webhook(endpoint), limit, now);
            List<EventRecord> wanted = all.events().stream().filter(e -> wants.test(e.type(), e.campaign())).toList();
            List<Long> mails = wanted.stream().map(EventRecord::mailId).filter(Objects::nonNull).distinct().toList();
            Set<Long> waiting = new HashSet<>();
            for (List<Long> chunk : chunks(mails)) {
                try (PreparedStatement s = c.prepareStatement("SELECT DISTINCT MAIL_ID FROM WEBHOOK_DELIVERY WHERE"
                        + " ENDPOINT = ? AND STATUS = 'PENDING' AND MAIL_ID IN (" + marks(chunk.size()) + ")")) {
                    s.setString(1, endpoint);
                    bindIds(s, 2, chunk);
                    waiting.addAll(readIds(s));
                }
            }
            return new EndpointStep(new Step(all.publisher(), all.from(), all.to(), all.more(), wanted), waiting);
        } catch (SQLException e) {
            throw new StoreException("could not read the delivery events of webhook endpoint " + endpoint, e);
        }
    }

    /**
     * A delivery kept in WEBHOOK_DELIVERY because it did not go with the cursor.
     *
     * @param event       the event
     * @param attempts    tries so far: 0 for one parked behind another
     * @param next        when to try it again; null: at once when parked untried, else given up (FAILED)
     * @param httpStatus  the receiver's last answer, or null
     * @param lastError   why the last try failed, or null
     */
    public record Parked(EventRecord event, int attempts, Instant next, Integer httpStatus, String lastError) {

        /** @return the event, parked untried behind a failed one, to be tried as soon as its turn comes */
        public static Parked behind(EventRecord event) {
            return new Parked(event, 0, null, null, null);
        }

        /** @return the event after its first try failed; {@code next} null: given up */
        public static Parked failed(EventRecord event, Integer httpStatus, String error, Instant next) {
            return new Parked(event, 1, next, httpStatus, error);
        }
    }

    /**
     * Records an endpoint's step from its cursor, in one transaction: parks what did not go (an event parked
     * already keeps its row), and moves the cursor past the batch, unless another server moved it meanwhile.
     *
     * @param endpoint the endpoint
     * @param batch    the step's batch ({@link #next})
     * @param parked   its events that failed or wait behind one, in event order
     * @param now      now
     * @return true when the cursor moved
     * @throws StoreException when the database fails
     */
    public boolean pass(String endpoint, Step batch, List<Parked> parked, Instant now) {
        try (Connection c = tables.connect()) {
            if (!parked.isEmpty()) {
                park(c, tables.dialect(c), endpoint, parked, now);
            }
            return batch.moves() && advance(c, batch, now);
        } catch (SQLException e) {
            throw new StoreException("could not record the deliveries of webhook endpoint " + endpoint, e);
        }
    }

    private static void park(Connection c, Dialect d, String endpoint, List<Parked> parked, Instant now)
            throws SQLException {
        Set<Long> there = new HashSet<>();
        List<Long> ids = parked.stream().map(p -> p.event().id()).toList();
        for (List<Long> chunk : chunks(ids)) {
            try (PreparedStatement s = c.prepareStatement("SELECT EVENT_ID FROM WEBHOOK_DELIVERY WHERE ENDPOINT = ?"
                    + " AND EVENT_ID IN (" + marks(chunk.size()) + ")")) {
                s.setString(1, endpoint);
                bindIds(s, 2, chunk);
                there.addAll(readIds(s));
            }
        }
        if (there.containsAll(ids)) {
            return;
        }
        try (Batch batch = new Batch(c, d.kind(), "INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, ATTEMPT_ID,"
                + " MAIL_ID, STATUS, ATTEMPTS, CREATED_AT, NEXT_ATTEMPT_AT, LAST_ATTEMPT_AT, HTTP_STATUS, LAST_ERROR)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            PreparedStatement s = batch.statement();
            for (Parked p : parked) {
                long id = p.event().id();
                if (!there.add(id)) {
                    continue;
                }
                s.setString(1, endpoint);
                s.setLong(2, id);
                s.setLong(3, id / LogEvents.PARTS);
                if (p.event().mailId() == null) {
                    s.setNull(4, Types.BIGINT);
                } else {
                    s.setLong(4, p.event().mailId());
                }
                s.setString(5, p.attempts() > 0 && p.next() == null ? "FAILED" : "PENDING");
                s.setInt(6, p.attempts());
                SqlTime.set(s, 7, now);
                SqlTime.set(s, 8, p.next() == null ? now : p.next());
                SqlTime.set(s, 9, p.attempts() == 0 ? null : now);
                if (p.httpStatus() == null) {
                    s.setNull(10, Types.INTEGER);
                } else {
                    s.setInt(10, p.httpStatus());
                }
                setText(s, 11, Texts.clip(p.lastError(), 1000));
                batch.add();
            }
            batch.execute();
        }
    }

    /** A parked delivery that is due: its event, how often it was tried, and when it was parked. */
    public record Due(EventRecord event, int attempts, Instant createdAt) {
    }

    /**
     * @param endpoint the endpoint
     * @param now      now
     * @param limit    most deliveries, 1 or more
     * @return its parked deliveries that are due, in event order, none of a mail with an earlier one backing off;
     *         a delivery whose event is gone (its log row deleted) is dropped
     * @throws StoreException when the database fails
     */
    public List<Due> due(String endpoint, Instant now, int limit) {
        try (Connection c = tables.connect()) {
            List<long[]> rows = new ArrayList<>(); // event id, attempts
            List<Instant> created = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(tables.dialect(c).kind().firstRows(DUE, limit))) {
                s.setString(1, endpoint);
                SqlTime.set(s, 2, now);
                SqlTime.set(s, 3, now);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        rows.add(new long[]{r.getLong(1), r.getInt(2)});
                        created.add(SqlTime.get(r, 3));
                    }
                }
            }
            Map<Long, EventRecord> events = LogEvents.byId(c, rows.stream().map(r -> r[0]).toList());
            List<Due> due = new ArrayList<>(rows.size());
            List<Long> gone = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                EventRecord e = events.get(rows.get(i)[0]);
                if (e == null) {
                    gone.add(rows.get(i)[0]);
                } else {
                    due.add(new Due(e, (int) rows.get(i)[1], created.get(i)));
                }
            }
            for (List<Long> chunk : chunks(gone)) {
                try (PreparedStatement s = c.prepareStatement("DELETE FROM WEBHOOK_DELIVERY WHERE ENDPOINT = ?"
                        + " AND EVENT_ID IN (" + marks(chunk.size()) + ")")) {
                    s.setString(1, endpoint);
                    bindIds(s, 2, chunk);
                    s.executeUpdate();
                }
            }
            return due;
        } catch (SQLException e) {
            throw new StoreException("could not read the due deliveries of webhook endpoint " + endpoint, e);
        }
    }

    /**
     * Records one try of a parked delivery: delivered, its row goes; failed, it backs off or is given up.
     *
     * @param endpoint   the endpoint
     * @param eventId    the event
     * @param now        when the try ended
     * @param httpStatus the receiver's answer, or null when none came
     * @param error      why it failed, or null when it was delivered
     * @param nextTry    when to try again; null with an error: given up (FAILED)
     * @throws StoreException when the database fails
     */
    public void tried(String endpoint, long eventId, Instant now, Integer httpStatus, String error, Instant nextTry) {
        try (Connection c = tables.connect()) {
            if (error == null) {
                try (PreparedStatement s = c.prepareStatement("DELETE FROM WEBHOOK_DELIVERY WHERE ENDPOINT = ?"
                        + " AND EVENT_ID = ?")) {
                    s.setString(1, endpoint);
                    s.setLong(2, eventId);
                    s.executeUpdate();
                }
                return;
            }
            try (PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_DELIVERY SET STATUS = ?, ATTEMPTS = ATTEMPTS + 1,"
                    + " LAST_ATTEMPT_AT = ?, HTTP_STATUS = ?, LAST_ERROR = ?, NEXT_ATTEMPT_AT = ?"
                    + " WHERE ENDPOINT = ? AND EVENT_ID = ?")) {
                s.setString(1, nextTry == null ? "FAILED" : "PENDING");
                SqlTime.set(s, 2, now);
                if (httpStatus == null) {
                    s.setNull(3, Types.INTEGER);
                } else {
                    s.setInt(3, httpStatus);
                }
                setText(s, 4, Texts.clip(error, 1000));
                SqlTime.set(s, 5, nextTry == null ? now : nextTry);
                s.setString(6, endpoint);
                s.setLong(7, eventId);
                s.executeUpdate();
            }
        } catch (SQLException e) {
            throw new StoreException("could not record a delivery to webhook endpoint " + endpoint, e);
        }
    }

    /**
     * Puts a delivery in line to be sent as soon as possible (an operator's redelivery): a parked one whatever its
     * status, keeping its attempts; an event that has no row (delivered, or not yet reached by the cursor) is
     * parked anew, so that it goes once more, with its id, and its mail's later events wait behind it.
     *
     * @return true when there is such an event
     * @throws StoreException when the database fails
     */
    public boolean redeliver(String endpoint, long eventId, Instant now) {
        try (Connection c = tables.connect()) {
            try (PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_DELIVERY SET STATUS = 'PENDING',"
                    + " NEXT_ATTEMPT_AT = ? WHERE ENDPOINT = ? AND EVENT_ID = ?")) {
                SqlTime.set(s, 1, now);
                s.setString(2, endpoint);
                s.setLong(3, eventId);
                if (s.executeUpdate() == 1) {
                    return true;
                }
            }
            EventRecord event = eventId < 0 ? null : LogEvents.byId(c, List.of(eventId)).get(eventId);
            if (event == null) {
                return false;
            }
            park(c, tables.dialect(c), endpoint, List.of(Parked.behind(event)), now);
            return true;
        } catch (SQLException e) {
            throw new StoreException("could not redeliver event " + eventId + " to " + endpoint, e);
        }
    }


    /**
     * @param endpoint an endpoint
     * @param status   PENDING or FAILED, or null for both
     * @param offset   rows to skip, 0 or more
     * @param limit    most rows, 1 or more
     * @return its parked deliveries (delivered events leave none), newest event first
     * @throws StoreException when the database fails
     */
    public List<WebhookDelivery> deliveries(String endpoint, String status, int offset, int limit) {
        try (Connection c = tables.connect(); PreparedStatement s = c.prepareStatement("SELECT d.EVENT_ID, d.MAIL_ID,"
                + " d.STATUS, d.ATTEMPTS, d.CREATED_AT, d.NEXT_ATTEMPT_AT, d.LAST_ATTEMPT_AT, d.HTTP_STATUS, d.LAST_ERROR"
                + " FROM WEBHOOK_DELIVERY d WHERE d.ENDPOINT = ?" + (status == null ? "" : " AND d.STATUS = ?")
                + " ORDER BY d.EVENT_ID DESC")) {
            s.setString(1, endpoint);
            if (status != null) {
                s.setString(2, status);
            }
            s.setMaxRows(offset + limit);
            List<WebhookDelivery> rows = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                int skipped = 0;
                while (r.next()) {
                    if (skipped++ < offset) {
                        continue;
                    }
                    long mail = r.getLong(2);
                    Long mailId = r.wasNull() ? null : mail;
                    int http = r.getInt(8);
                    rows.add(new WebhookDelivery(r.getLong(1), mailId, null, r.getString(3), r.getInt(4), SqlTime.get(r, 5),
                            SqlTime.get(r, 6), SqlTime.get(r, 7), r.wasNull() ? null : http, r.getString(9)));
                }
            }
            Map<Long, EventRecord> events = LogEvents.byId(c, rows.stream().map(WebhookDelivery::eventId).toList());
            return rows.stream().map(d -> new WebhookDelivery(d.eventId(), d.mailId(), events.containsKey(d.eventId())
                    ? events.get(d.eventId()).type() : null, d.status(), d.attempts(), d.createdAt(), d.nextAttemptAt(),
                    d.lastAttemptAt(), d.httpStatus(), d.lastError())).toList();
        } catch (SQLException e) {
            throw new StoreException("could not read the deliveries of webhook endpoint " + endpoint, e);
        }
    }

    /**
     * An endpoint's health as the servers share it, its parked deliveries by status, and its cursor.
     *
     * @param pending        parked deliveries still to go (waiting, or backing off)
     * @param failed         parked deliveries given up
     * @param cursor         where its cursor stands in the log (a transaction id on PostgreSQL, a log id on Derby
     *                       and MariaDB), or null before its first round
     * @param cursorMovedAt  when its cursor last moved, or null
     */
    public record EndpointState(String name, Instant failingSince, Instant disabledAt, Instant lastSuccessAt,
                                long pending, long failed, Long cursor, Instant cursorMovedAt) {
    }

    /**
     * @param name an endpoint
     * @return its state; a new endpoint has no failures, nothing parked and no cursor
     * @throws StoreException when the database fails
     */
    public EndpointState state(String name) {
        try (Connection c = tables.connect()) {
            Instant failing = null;
            Instant disabled = null;
            Instant success = null;
            try (PreparedStatement s = c.prepareStatement("SELECT FAILING_SINCE, DISABLED_AT, LAST_SUCCESS_AT"
                    + " FROM WEBHOOK_ENDPOINT WHERE NAME = ?")) {
                s.setString(1, name);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        failing = SqlTime.get(r, 1);
                        disabled = SqlTime.get(r, 2);
                        success = SqlTime.get(r, 3);
                    }
                }
            }
            long pending = 0;
            long failed = 0;
            try (PreparedStatement s = c.prepareStatement("SELECT STATUS, COUNT(*) FROM WEBHOOK_DELIVERY"
                    + " WHERE ENDPOINT = ? AND STATUS IN ('PENDING', 'FAILED') GROUP BY STATUS")) {
                s.setString(1, name);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        if ("PENDING".equals(r.getString(1))) {
                            pending = r.getLong(2);
                        } else {
                            failed = r.getLong(2);
                        }
                    }
                }
            }
            Long cursor = null;
            Instant moved = null;
            try (PreparedStatement s = c.prepareStatement("SELECT POSITION, UPDATED_AT FROM EVENT_CURSOR WHERE NAME = ?")) {
                s.setString(1, webhook(name));
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        cursor = r.getLong(1);
                        moved = SqlTime.get(r, 2);
                    }
                }
            }
            return new EndpointState(name, failing, disabled, success, pending, failed, cursor, moved);
        } catch (SQLException e) {
            throw new StoreException("could not read the state of webhook endpoint " + name, e);
        }
    }

    /**
     * Notes how a try at an endpoint went: a success clears its failure; a failure starts (or continues)
     * its failing time, and disables it once that is {@code disableAfterMillis} long.
     *
     * @param name               the endpoint
     * @param succeeded          true when the receiver answered 2xx
     * @param now                now
     * @param disableAfterMillis how long an endpoint may fail before it is disabled, ms, 1 or more
     * @return true when the endpoint is disabled now
     * @throws StoreException when the database fails
     */
    public boolean noteEndpoint(String name, boolean succeeded, Instant now, long disableAfterMillis) {
        try (Connection c = tables.connect()) {
            ensureRow(c, "WEBHOOK_ENDPOINT", "NAME", name);
            if (succeeded) {
                try (PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_ENDPOINT SET FAILING_SINCE = NULL,"
                        + " LAST_SUCCESS_AT = ? WHERE NAME = ?")) {
                    SqlTime.set(s, 1, now);
                    s.setString(2, name);
                    s.executeUpdate();
                }
                return false;
            }
            try (PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_ENDPOINT SET FAILING_SINCE = ? WHERE NAME = ?"
                    + " AND FAILING_SINCE IS NULL")) {
                SqlTime.set(s, 1, now);
                s.setString(2, name);
                s.executeUpdate();
            }
            try (PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_ENDPOINT SET DISABLED_AT = ? WHERE NAME = ?"
                    + " AND DISABLED_AT IS NULL AND FAILING_SINCE <= ?")) {
                SqlTime.set(s, 1, now);
                s.setString(2, name);
                SqlTime.set(s, 3, now.minusMillis(disableAfterMillis));
                s.executeUpdate();
            }
            return state(name).disabledAt() != null;
        } catch (SQLException e) {
            throw new StoreException("could not note how webhook endpoint " + name + " answered", e);
        }
    }

    /**
     * Enables a disabled endpoint again (an operator's action): its failing time starts afresh, and its cursor
     * goes on where it stopped.
     *
     * @return true when it was disabled
     * @throws StoreException when the database fails
     */
    public boolean enable(String name) {
        try (Connection c = tables.connect(); PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_ENDPOINT"
                + " SET DISABLED_AT = NULL, FAILING_SINCE = NULL WHERE NAME = ? AND DISABLED_AT IS NOT NULL")) {
            s.setString(1, name);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new StoreException("could not enable webhook endpoint " + name, e);
        }
    }

    /**
     * Takes or renews the lease of a piece of work that one server at a time does.
     *
     * @param work  the work's name, at most 64 characters
     * @param owner this server
     * @param now   now
     * @param until the lease's end
     * @return true when {@code owner} holds the lease until {@code until}
     * @throws StoreException when the database fails
     */
    public boolean lease(String work, String owner, Instant now, Instant until) {
        try (Connection c = tables.connect()) {
            ensureRow(c, "WORK_LEASE", "NAME", work);
            try (PreparedStatement s = c.prepareStatement("UPDATE WORK_LEASE SET OWNER = ?, EXPIRES_AT = ? WHERE NAME = ?"
                    + " AND (OWNER IS NULL OR OWNER = ? OR EXPIRES_AT < ?)")) {
                s.setString(1, owner);
                SqlTime.set(s, 2, until);
                s.setString(3, work);
                s.setString(4, owner);
                SqlTime.set(s, 5, now);
                return s.executeUpdate() == 1;
            }
        } catch (SQLException e) {
            throw new StoreException("could not lease " + work, e);
        }
    }

    /** Inserts the keyed row unless it is there; a concurrent insert of the same key is no error. */
    private static void ensureRow(Connection c, String table, String keyColumn, String key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM " + table + " WHERE " + keyColumn + " = ?")) {
            s.setString(1, key);
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    return;
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table + " (" + keyColumn + ") VALUES (?)")) {
            s.setString(1, key);
            s.executeUpdate();
        } catch (SQLException e) {
            if (!EnqueueStore.isUniqueViolation(e)) {
                throw e;
            }
        }
    }
}
