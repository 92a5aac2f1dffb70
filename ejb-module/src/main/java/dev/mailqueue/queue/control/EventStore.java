package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.mail.entity.AddressLists;
import dev.mailqueue.mail.entity.Texts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * The outbox's reading side: hands new delivery events to the webhook endpoints that want them (one
 * WEBHOOK_DELIVERY row per event and endpoint), finds each endpoint's due deliveries in order, records how
 * each went, and keeps each endpoint's health. Every method runs in the caller's transaction.
 */
@ApplicationScoped
public class EventStore {

    /** Columns of an event with its mail, for {@link #event}. */
    /**
     * An event's own columns. Its mail's columns ({@link #MAIL_COLUMNS}) are read by a second query, by
     * primary key, not joined: with the statistics of freshly filled tables (a new schema, or one emptied)
     * PostgreSQL planned that outer join as a nested loop over a materialized scan of every mail, 62 s for
     * 500 events of 40,000 (benchmark, session 10).
     */
    private static final String EVENT_COLUMNS = "e.ID, e.MAIL_ID, e.EVENT_TYPE, e.OCCURRED_AT, e.RECIPIENT,"
            + " e.REPLY_CODE, e.ENHANCED_STATUS, e.DETAIL, e.NEXT_ATTEMPT_AT";

    private static final String MAIL_COLUMNS = "ID, MESSAGE_ID, REFERENCE, CAMPAIGN, TAGS, TO_ADDRESSES, CC_ADDRESSES,"
            + " BCC_ADDRESSES";

    /**
     * An endpoint's due deliveries in event order, less those whose mail has an earlier event still
     * pending for the endpoint (events of one mail arrive in order). {@code ?}s: endpoint, now.
     */
    static final String DUE = "SELECT d.ATTEMPTS, d.CREATED_AT, " + EVENT_COLUMNS + " FROM WEBHOOK_DELIVERY d"
            + " JOIN MAIL_EVENT e ON e.ID = d.EVENT_ID"
            + " WHERE d.ENDPOINT = ? AND d.STATUS = 'PENDING' AND d.NEXT_ATTEMPT_AT <= ? AND NOT EXISTS"
            + " (SELECT 1 FROM WEBHOOK_DELIVERY p WHERE p.ENDPOINT = d.ENDPOINT AND p.MAIL_ID = d.MAIL_ID"
            + " AND p.EVENT_ID < d.EVENT_ID AND p.STATUS = 'PENDING') ORDER BY d.EVENT_ID";

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
     * Hands up to {@code limit} unpublished events, oldest first, to the endpoints that want them and marks
     * them published.
     *
     * @param limit     most events, 1 or more
     * @param endpoints the names of the endpoints that want an event of a type and campaign (null: none)
     * @param now       now, the deliveries' creation and first due time
     * @return events published, 0 when there were none
     * @throws StoreException when the database fails
     */
    public int publish(int limit, BiFunction<EventType, String, List<String>> endpoints, Instant now) {
        return publish(limit, List.of(), endpoints, now);
    }

    /**
     * As {@link #publish(int, BiFunction, Instant)}, for the given events only (those of them not yet
     * published): for a caller that has handed exactly these to a Jakarta Messaging topic first.
     *
     * @param ids events read by {@link #unpublished}, at most 500
     * @return events published
     * @throws StoreException when the database fails
     */
    public int publish(List<Long> ids, BiFunction<EventType, String, List<String>> endpoints, Instant now) {
        return ids.isEmpty() ? 0 : publish(ids.size(), ids, endpoints, now);
    }

    /**
     * @param limit most events, 1 or more
     * @return unpublished events, oldest first (per mail in the order they were written)
     * @throws StoreException when the database fails
     */
    public List<EventRecord> unpublished(int limit) {
        return events("e.PUBLISHED = 0", limit, s -> { }, "the unpublished delivery events");
    }

    /** Binds a query's parameters. */
    @FunctionalInterface
    private interface Binding {
        void bind(PreparedStatement s) throws SQLException;
    }

    /**
     * @param limit most events, or 0 for all; a LIMIT in the SQL, so that the database stops there (a JDBC
     *              max-rows would let PostgreSQL join and sort every match first)
     * @return the events that match {@code where}, oldest first
     */
    private List<EventRecord> events(String where, int limit, Binding binding, String what) {
        String select = "SELECT " + EVENT_COLUMNS + " FROM MAIL_EVENT e WHERE " + where + " ORDER BY e.ID";
        try (Connection c = tables.connect()) {
            List<Row> rows = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(limit > 0 ? tables.dialect(c).kind().firstRows(select, limit) : select)) {
                binding.bind(s);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        rows.add(row(r, 1));
                    }
                }
            }
            Map<Long, MailPart> mails = mails(c, rows);
            return rows.stream().map(row -> row.with(mails.get(row.mailId()))).toList();
        } catch (SQLException e) {
            throw new StoreException("could not read " + what, e);
        }
    }

    private int publish(int limit, List<Long> only, BiFunction<EventType, String, List<String>> endpoints, Instant now) {
        try (Connection c = tables.connect()) {
            Dialect d = tables.dialect(c);
            List<long[]> events = new ArrayList<>(); // id, mail id (or -1)
            List<EventType> types = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(d.kind().firstRows("SELECT e.ID, e.MAIL_ID, e.EVENT_TYPE"
                    + " FROM MAIL_EVENT e WHERE e.PUBLISHED = 0"
                    + (only.isEmpty() ? "" : " AND e.ID IN (" + marks(only.size()) + ")") + " ORDER BY e.ID", limit))) {
                if (!only.isEmpty()) {
                    bindIds(s, 1, only);
                }
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        long mail = r.getLong(2);
                        events.add(new long[]{r.getLong(1), r.wasNull() ? -1 : mail});
                        types.add(EventType.valueOf(r.getString(3)));
                    }
                }
            }
            Map<Long, String> campaigns = campaigns(c, events.stream().filter(e -> e[1] >= 0).map(e -> e[1]).distinct().toList());
            List<List<String>> wanted = new ArrayList<>(events.size());
            for (int i = 0; i < events.size(); i++) {
                wanted.add(endpoints.apply(types.get(i), campaigns.get(events.get(i)[1])));
            }
            if (events.isEmpty()) {
                return 0;
            }
            boolean any = wanted.stream().anyMatch(w -> !w.isEmpty());
            if (any) {
                try (Batch batch = new Batch(c, d.kind(), "INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, MAIL_ID,"
                        + " STATUS, ATTEMPTS, CREATED_AT, NEXT_ATTEMPT_AT) VALUES (?, ?, ?, 'PENDING', 0, ?, ?)")) {
                    PreparedStatement s = batch.statement();
                    for (int i = 0; i < events.size(); i++) {
                        for (String endpoint : wanted.get(i)) {
                            s.setString(1, endpoint);
                            s.setLong(2, events.get(i)[0]);
                            if (events.get(i)[1] < 0) {
                                s.setNull(3, Types.BIGINT);
                            } else {
                                s.setLong(3, events.get(i)[1]);
                            }
                            SqlTime.set(s, 4, now);
                            SqlTime.set(s, 5, now);
                            batch.add();
                        }
                    }
                    batch.execute();
                }
            }
            List<Long> ids = events.stream().map(e -> e[0]).toList();
            for (List<Long> chunk : chunks(ids)) {
                try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_EVENT SET PUBLISHED = 1 WHERE ID IN ("
                        + marks(chunk.size()) + ")")) {
                    bindIds(s, 1, chunk);
                    s.executeUpdate();
                }
            }
            return events.size();
        } catch (SQLException e) {
            throw new StoreException("could not publish delivery events", e);
        }
    }

    /** A delivery that is due: its event, and how often it was tried. */
    public record Due(EventRecord event, int attempts, Instant createdAt) {
    }

    /**
     * @param endpoint the endpoint
     * @param now      now
     * @param limit    most deliveries, 1 or more
     * @return its due deliveries, in event order, none of a mail with an earlier one pending
     * @throws StoreException when the database fails
     */
    public List<Due> due(String endpoint, Instant now, int limit) {
        try (Connection c = tables.connect()) {
            List<Row> rows = new ArrayList<>();
            List<int[]> attempts = new ArrayList<>();
            List<Instant> created = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(tables.dialect(c).kind().firstRows(DUE, limit))) {
                s.setString(1, endpoint);
                SqlTime.set(s, 2, now);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        attempts.add(new int[]{r.getInt(1)});
                        created.add(SqlTime.get(r, 2));
                        rows.add(row(r, 3));
                    }
                }
            }
            Map<Long, MailPart> mails = mails(c, rows);
            List<Due> due = new ArrayList<>(rows.size());
            for (int i = 0; i < rows.size(); i++) {
                due.add(new Due(rows.get(i).with(mails.get(rows.get(i).mailId())), attempts.get(i)[0], created.get(i)));
            }
            return due;
        } catch (SQLException e) {
            throw new StoreException("could not read the due deliveries of webhook endpoint " + endpoint, e);
        }
    }

    /**
     * @param mailId a mail
     * @return its events, oldest first
     * @throws StoreException when the database fails
     */
    public List<EventRecord> eventsOf(long mailId) {
        return events("e.MAIL_ID = ?", 0, s -> s.setLong(1, mailId), "the events of mail " + mailId);
    }

    /** An event's own columns. */
    private record Row(long id, Long mailId, EventType type, Instant at, String recipient, Integer replyCode,
                       String enhanced, String detail, Instant next) {

        EventRecord with(MailPart mail) {
            MailPart m = mail == null ? MailPart.NONE : mail;
            return new EventRecord(id, mailId, type, at, recipient, replyCode, enhanced, detail, next, m.messageId(),
                    m.reference(), m.campaign(), m.tags(), m.recipients());
        }
    }

    /** What an event carries of its mail. */
    private record MailPart(String messageId, String reference, String campaign, List<String> tags,
                            List<String> recipients) {
        static final MailPart NONE = new MailPart(null, null, null, List.of(), List.of());
    }

    private static Row row(ResultSet r, int from) throws SQLException {
        int i = from;
        long id = r.getLong(i++);
        long mail = r.getLong(i++);
        Long mailId = r.wasNull() ? null : mail;
        EventType type = EventType.valueOf(r.getString(i++));
        Instant at = SqlTime.get(r, i++);
        String recipient = r.getString(i++);
        int code = r.getInt(i++);
        Integer replyCode = r.wasNull() ? null : code;
        return new Row(id, mailId, type, at, recipient, replyCode, r.getString(i++), r.getString(i++), SqlTime.get(r, i));
    }

    /** @return the campaigns of those mails that have one, by mail id: a query per 500, by primary key */
    private static Map<Long, String> campaigns(Connection c, List<Long> mailIds) throws SQLException {
        Map<Long, String> campaigns = new java.util.HashMap<>();
        for (List<Long> chunk : chunks(mailIds)) {
            try (PreparedStatement s = c.prepareStatement("SELECT ID, CAMPAIGN FROM MAIL_MESSAGE WHERE CAMPAIGN IS NOT NULL"
                    + " AND ID IN (" + marks(chunk.size()) + ")")) {
                bindIds(s, 1, chunk);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        campaigns.put(r.getLong(1), r.getString(2));
                    }
                }
            }
        }
        return campaigns;
    }

    /** @return the mails of the events (those that have one and still exist), by id: a query per 500, by primary key */
    private static Map<Long, MailPart> mails(Connection c, List<Row> rows) throws SQLException {
        List<Long> ids = rows.stream().map(Row::mailId).filter(java.util.Objects::nonNull).distinct().toList();
        Map<Long, MailPart> mails = new java.util.HashMap<>();
        for (List<Long> chunk : chunks(ids)) {
            try (PreparedStatement s = c.prepareStatement("SELECT " + MAIL_COLUMNS + " FROM MAIL_MESSAGE WHERE ID IN ("
                    + marks(chunk.size()) + ")")) {
                bindIds(s, 1, chunk);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        String tags = r.getString(5);
                        List<String> recipients = new ArrayList<>();
                        for (int k = 6; k <= 8; k++) {
                            recipients.addAll(AddressLists.split(r.getString(k)));
                        }
                        mails.put(r.getLong(1), new MailPart(r.getString(2), r.getString(3), r.getString(4),
                                tags == null || tags.isEmpty() ? List.of() : List.of(tags.split(",")), recipients));
                    }
                }
            }
        }
        return mails;
    }

    /**
     * Records one try of a delivery.
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
        String status = error == null ? "DELIVERED" : nextTry == null ? "FAILED" : "PENDING";
        try (Connection c = tables.connect(); PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_DELIVERY SET"
                + " STATUS = ?, ATTEMPTS = ATTEMPTS + 1, LAST_ATTEMPT_AT = ?, HTTP_STATUS = ?, LAST_ERROR = ?,"
                + " NEXT_ATTEMPT_AT = ? WHERE ENDPOINT = ? AND EVENT_ID = ?")) {
            s.setString(1, status);
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
        } catch (SQLException e) {
            throw new StoreException("could not record a delivery to webhook endpoint " + endpoint, e);
        }
    }

    /**
     * Puts a delivery back in line to be sent as soon as possible (an operator's redelivery), whatever its
     * status; the attempts it had stay counted.
     *
     * @return true when there is such a delivery
     * @throws StoreException when the database fails
     */
    public boolean redeliver(String endpoint, long eventId, Instant now) {
        try (Connection c = tables.connect(); PreparedStatement s = c.prepareStatement("UPDATE WEBHOOK_DELIVERY SET"
                + " STATUS = 'PENDING', NEXT_ATTEMPT_AT = ? WHERE ENDPOINT = ? AND EVENT_ID = ?")) {
            SqlTime.set(s, 1, now);
            s.setString(2, endpoint);
            s.setLong(3, eventId);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new StoreException("could not redeliver event " + eventId + " to " + endpoint, e);
        }
    }

    /** One row of an endpoint's delivery log. */
    public record Delivery(long eventId, Long mailId, EventType type, String status, int attempts, Instant createdAt,
                           Instant nextAttemptAt, Instant lastAttemptAt, Integer httpStatus, String lastError) {
    }

    /**
     * @param endpoint an endpoint
     * @param status   PENDING, DELIVERED or FAILED, or null for all
     * @param offset   rows to skip, 0 or more
     * @param limit    most rows, 1 or more
     * @return its deliveries, newest event first
     * @throws StoreException when the database fails
     */
    public List<Delivery> deliveries(String endpoint, String status, int offset, int limit) {
        try (Connection c = tables.connect(); PreparedStatement s = c.prepareStatement("SELECT d.EVENT_ID, d.MAIL_ID,"
                + " e.EVENT_TYPE, d.STATUS, d.ATTEMPTS, d.CREATED_AT, d.NEXT_ATTEMPT_AT, d.LAST_ATTEMPT_AT, d.HTTP_STATUS,"
                + " d.LAST_ERROR FROM WEBHOOK_DELIVERY d JOIN MAIL_EVENT e ON e.ID = d.EVENT_ID WHERE d.ENDPOINT = ?"
                + (status == null ? "" : " AND d.STATUS = ?") + " ORDER BY d.EVENT_ID DESC")) {
            s.setString(1, endpoint);
            if (status != null) {
                s.setString(2, status);
            }
            s.setMaxRows(offset + limit);
            List<Delivery> rows = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                int skipped = 0;
                while (r.next()) {
                    if (skipped++ < offset) {
                        continue;
                    }
                    long mail = r.getLong(2);
                    Long mailId = r.wasNull() ? null : mail;
                    int http = r.getInt(9);
                    rows.add(new Delivery(r.getLong(1), mailId, EventType.valueOf(r.getString(3)), r.getString(4),
                            r.getInt(5), SqlTime.get(r, 6), SqlTime.get(r, 7), SqlTime.get(r, 8),
                            r.wasNull() ? null : http, r.getString(10)));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new StoreException("could not read the deliveries of webhook endpoint " + endpoint, e);
        }
    }

    /** An endpoint's health as the servers share it, and its deliveries by status. */
    public record EndpointState(String name, Instant failingSince, Instant disabledAt, Instant lastSuccessAt,
                                long pending, long failed) {
    }

    /**
     * @param name an endpoint
     * @return its state; a new endpoint has no failures and nothing pending
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
            return new EndpointState(name, failing, disabled, success, pending, failed);
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
     * Enables a disabled endpoint again (an operator's action): its failing time starts afresh.
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
