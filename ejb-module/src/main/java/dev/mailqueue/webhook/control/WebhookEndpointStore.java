package dev.mailqueue.webhook.control;

import dev.mailqueue.queue.control.QueueTables;
import dev.mailqueue.queue.control.Sql;
import dev.mailqueue.queue.control.SqlTime;
import dev.mailqueue.queue.control.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Each webhook endpoint's health as the servers share it (WEBHOOK_ENDPOINT): since when it fails, whether it is
 * disabled, its last success; and its state as operators see it, with its parked deliveries
 * ({@link WebhookDeliveryStore}) and its cursor ({@link EventCursorStore}). Every method runs in the caller's
 * transaction.
 */
@ApplicationScoped
public class WebhookEndpointStore {

    @Inject
    QueueTables tables;

    @Inject
    WebhookDeliveryStore deliveries;

    @Inject
    EventCursorStore cursors;

    /**
     * @param tables the queue's tables
     * @return a store on them, for use outside a container
     */
    public static WebhookEndpointStore on(QueueTables tables) {
        WebhookEndpointStore store = new WebhookEndpointStore();
        store.tables = tables;
        store.deliveries = WebhookDeliveryStore.on(tables);
        store.cursors = EventCursorStore.on(tables);
        return store;
    }

    /**
     * An endpoint's health as the servers share it, its parked deliveries by status, and its cursor.
     *
     * @param name           the endpoint's name
     * @param failingSince   when its current run of failures began, or null while it succeeds
     * @param disabledAt     when it was disabled for failing too long, or null while enabled
     * @param lastSuccessAt  when a receiver last took its events, or null
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
            WebhookDeliveryStore.Counts parked = deliveries.counts(name);
            EventCursorStore.Position cursor = cursors.position(EventCursorStore.webhook(name));
            return new EndpointState(name, failing, disabled, success, parked.pending(), parked.failed(),
                    cursor == null ? null : cursor.position(), cursor == null ? null : cursor.movedAt());
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
            Sql.ensureRow(c, "WEBHOOK_ENDPOINT", "NAME", name);
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
}
