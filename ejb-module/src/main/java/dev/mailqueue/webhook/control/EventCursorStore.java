package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventRecord;
import dev.mailqueue.queue.control.EventStore;
import dev.mailqueue.queue.control.QueueTables;
import dev.mailqueue.queue.control.SqlTime;
import dev.mailqueue.queue.control.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Where each publisher of the delivery events stands in the mails' log (EVENT_CURSOR): the Jakarta Messaging
 * topic's cursor and one per webhook endpoint. A publisher reads the log by its cursor, in the order that no late
 * commit can pass ({@link EventStore#after}), with one write per publisher and step, none per event. A publisher
 * seen for the first time starts at the current horizon ({@link EventStore#start}): it gets no history. Every
 * method runs in the caller's transaction.
 */
@ApplicationScoped
public class EventCursorStore {

    /** The cursor of the Jakarta Messaging topic. */
    public static final String TOPIC = "topic";

    @Inject
    QueueTables tables;

    @Inject
    EventStore events;

    /**
     * @param tables the queue's tables
     * @return a store on them, for use outside a container
     */
    public static EventCursorStore on(QueueTables tables) {
        EventCursorStore store = new EventCursorStore();
        store.tables = tables;
        store.events = EventStore.on(tables);
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
     * @throws IllegalArgumentException when {@code limit} is below 1
     * @throws StoreException           when the database fails
     */
    public Step read(String publisher, int limit, Instant now) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be 1 or more, was " + limit);
        }
        try (Connection c = tables.connect()) {
            Long position = null;
            try (PreparedStatement s = c.prepareStatement("SELECT POSITION FROM EVENT_CURSOR WHERE NAME = ?")) {
                s.setString(1, publisher);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        position = r.getLong(1);
                    }
                }
            }
            if (position == null) {
                long start = events.start();
                try (PreparedStatement s = c.prepareStatement("INSERT INTO EVENT_CURSOR (NAME, POSITION, UPDATED_AT)"
                        + " VALUES (?, ?, ?)")) {
                    s.setString(1, publisher);
                    s.setLong(2, start);
                    SqlTime.set(s, 3, now);
                    s.executeUpdate();
                }
                return new Step(publisher, start, start, false, List.of());
            }
            EventStore.Slice slice = events.after(position, limit);
            return new Step(publisher, position, slice.to(), slice.more(), slice.events());
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

    /**
     * Where a cursor stands.
     *
     * @param position a transaction id on PostgreSQL, a log id on Derby and MariaDB
     * @param movedAt  when it last moved
     */
    public record Position(long position, Instant movedAt) {
    }

    /**
     * @param publisher a cursor's name
     * @return where it stands, or null before the publisher's first read
     * @throws StoreException when the database fails
     */
    public Position position(String publisher) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT POSITION, UPDATED_AT FROM EVENT_CURSOR WHERE NAME = ?")) {
            s.setString(1, publisher);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? new Position(r.getLong(1), SqlTime.get(r, 2)) : null;
            }
        } catch (SQLException e) {
            throw new StoreException("could not read cursor " + publisher, e);
        }
    }
}
