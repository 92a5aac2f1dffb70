package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventRecord;
import dev.mailqueue.api.EventType;
import dev.mailqueue.api.WebhookDelivery;
import dev.mailqueue.queue.control.Batch;
import dev.mailqueue.queue.control.EventStore;
import dev.mailqueue.queue.control.QueueTables;
import dev.mailqueue.queue.control.SqlTime;
import dev.mailqueue.queue.control.StoreException;
import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.webhook.control.EventCursorStore.Step;
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

import static dev.mailqueue.queue.control.Sql.bindIds;
import static dev.mailqueue.queue.control.Sql.chunks;
import static dev.mailqueue.queue.control.Sql.clip;
import static dev.mailqueue.queue.control.Sql.marks;
import static dev.mailqueue.queue.control.Sql.readIds;
import static dev.mailqueue.queue.control.Sql.setText;

/**
 * The webhook deliveries that could not go with their endpoint's cursor (WEBHOOK_DELIVERY). An endpoint's events
 * go straight from its cursor ({@link EventCursorStore}) to the receiver; a row here is kept only for an event that
 * failed (backing off, or given up: FAILED), or that waits behind one (parked: no attempt yet), so that a mail's
 * events still arrive in order and none is lost. A delivered parked event's row is deleted. Every method runs in
 * the caller's transaction.
 */
@ApplicationScoped
public class WebhookDeliveryStore {

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

    @Inject
    EventStore events;

    @Inject
    EventCursorStore cursors;

    /**
     * @param tables the queue's tables
     * @return a store on them, for use outside a container
     */
    public static WebhookDeliveryStore on(QueueTables tables) {
        WebhookDeliveryStore store = new WebhookDeliveryStore();
        store.tables = tables;
        store.events = EventStore.on(tables);
        store.cursors = EventCursorStore.on(tables);
        return store;
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
     * Reads the events after an endpoint's cursor, as {@link EventCursorStore#read}, and keeps those it wants.
     *
     * @param endpoint the endpoint
     * @param wants    whether it wants an event of a type and campaign (null: the mail has none)
     * @param limit    most log rows, 1 or more
     * @param now      now
     * @return the batch; hand it back with what became of its events to {@link #pass}
     * @throws StoreException when the database fails
     */
    public EndpointStep next(String endpoint, BiPredicate<EventType, String> wants, int limit, Instant now) {
        Step all = cursors.read(EventCursorStore.webhook(endpoint), limit, now);
        try (Connection c = tables.connect()) {
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
                park(c, tables.kind(c), endpoint, parked, now);
            }
            return cursors.advance(batch, now);
        } catch (SQLException e) {
            throw new StoreException("could not record the deliveries of webhook endpoint " + endpoint, e);
        }
    }

    private static void park(Connection c, DatabaseKind kind, String endpoint, List<Parked> parked, Instant now)
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
        try (Batch batch = new Batch(c, kind, "INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, ATTEMPT_ID,"
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
                s.setLong(3, EventStore.attemptOf(id));
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
                setText(s, 11, clip(p.lastError(), 1000));
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
            try (PreparedStatement s = c.prepareStatement(tables.kind(c).firstRows(DUE, limit))) {
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
            Map<Long, EventRecord> events = this.events.byId(rows.stream().map(r -> r[0]).toList());
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
                setText(s, 4, clip(error, 1000));
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
            EventRecord event = eventId < 0 ? null : events.byId(List.of(eventId)).get(eventId);
            if (event == null) {
                return false;
            }
            park(c, tables.kind(c), endpoint, List.of(Parked.behind(event)), now);
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
            Map<Long, EventRecord> events = this.events.byId(rows.stream().map(WebhookDelivery::eventId).toList());
            return rows.stream().map(d -> new WebhookDelivery(d.eventId(), d.mailId(), events.containsKey(d.eventId())
                    ? events.get(d.eventId()).type() : null, d.status(), d.attempts(), d.createdAt(), d.nextAttemptAt(),
                    d.lastAttemptAt(), d.httpStatus(), d.lastError())).toList();
        } catch (SQLException e) {
            throw new StoreException("could not read the deliveries of webhook endpoint " + endpoint, e);
        }
    }

    /**
     * An endpoint's parked deliveries by status.
     *
     * @param pending parked deliveries still to go (waiting, or backing off)
     * @param failed  parked deliveries given up
     */
    public record Counts(long pending, long failed) {
    }

    /**
     * @param endpoint an endpoint
     * @return how many of its deliveries are parked, by status
     * @throws StoreException when the database fails
     */
    public Counts counts(String endpoint) {
        try (Connection c = tables.connect()) {
            long pending = 0;
            long failed = 0;
            try (PreparedStatement s = c.prepareStatement("SELECT STATUS, COUNT(*) FROM WEBHOOK_DELIVERY"
                    + " WHERE ENDPOINT = ? AND STATUS IN ('PENDING', 'FAILED') GROUP BY STATUS")) {
                s.setString(1, endpoint);
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
            return new Counts(pending, failed);
        } catch (SQLException e) {
            throw new StoreException("could not count the parked deliveries of webhook endpoint " + endpoint, e);
        }
    }
}
