package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.settings.control.SoftBounceRule;
import dev.mailqueue.api.EventType;
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
import java.util.Locale;

import static dev.mailqueue.queue.control.Sql.setText;

/**
 * The suppression list (SUPPRESSION): addresses the queue must not send to, for all mail (scope
 * {@value Suppressed#ALL}) or for one list. Addresses are kept with the domain in lower case and the local part
 * as given: RFC 5321 §2.4 lets a server treat local parts as case-sensitive, never domains.
 */
@ApplicationScoped
public class SuppressionStore {

    /** Why an address is suppressed; the names are stored in SUPPRESSION.REASON. */
    public enum Reason {
        /** A Delivery Status Notification said the address does not work (5.x.x). */
        HARD_BOUNCE,
        /** Servers gave up on it (failed with 4.x.x) too often within a while: {@link SoftBounceRule}. */
        SOFT_BOUNCE,
        /** Its owner reported a mail as spam (ARF complaint). */
        COMPLAINT,
        /** Its owner unsubscribed from a list. */
        UNSUBSCRIBE,
        /** An operator put it on the list. */
        MANUAL,
        /** Its owner's data was erased ({@link ErasureStore}); the entry's address is a keyed hash ({@link ErasureKey}). */
        ERASED
    }

    /**
     * One entry.
     *
     * @param address   the address, domain in lower case
     * @param scope     {@value Suppressed#ALL} or a list name
     * @param reason    why
     * @param mailId    the mail whose bounce or complaint put it here, or null
     * @param detail    the report's status and diagnostic, or an operator's note; may be null
     * @param createdAt when it was added
     */
    public record Entry(String address, String scope, Reason reason, Long mailId, String detail, Instant createdAt) {
    }

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables
     * @return a store on them, e.g. for tests outside a container
     */
    public static SuppressionStore on(QueueTables tables) {
        SuppressionStore store = new SuppressionStore();
        store.tables = tables;
        return store;
    }

    /**
     * Adds an entry unless the address is already suppressed in that scope (the first reason stays). An
     * unsubscribe also writes an {@code unsubscribed} event whose detail names the list ({@code all mail}
     * for scope {@code *}).
     *
     * @return true when it was added
     * @throws StoreException when the database fails
     */
    public boolean add(String address, String scope, Reason reason, String detail, Instant now) {
        try (Connection c = tables.connect()) {
            return add(c, address, scope, reason, null, detail, now);
        } catch (SQLException e) {
            throw new StoreException("could not suppress " + address, e);
        }
    }

    /** As {@link #add(String, String, Reason, String, Instant)}, on the caller's connection. */
    boolean add(Connection c, String address, String scope, Reason reason, Long mailId, String detail, Instant now)
            throws SQLException {
        String key = Suppressed.normalise(address);
        if (find(c, key, scope) != null) {
            return false;
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO SUPPRESSION (ADDRESS, SCOPE, REASON, MAIL_ID,"
                + " DETAIL, CREATED_AT) VALUES (?, ?, ?, ?, ?, ?)")) {
            s.setString(1, key);
            s.setString(2, scope);
            s.setString(3, reason.name());
            if (mailId == null) {
                s.setNull(4, Types.BIGINT);
            } else {
                s.setLong(4, mailId);
            }
            setText(s, 5, Sql.clip(detail, 1000));
            SqlTime.set(s, 6, now);
            s.executeUpdate();
        }
        if (reason == Reason.UNSUBSCRIBE) { // a log row (and event) about an address and a list, of no one mail
            AttemptLog.insert(c, tables.kind(c), List.of(new AttemptLog.Row(null, now, now, "-", "one-click-unsubscribe",
                    dev.mailqueue.queue.entity.AttemptOutcome.UNSUBSCRIBED, null, null, Suppressed.ALL.equals(scope) ? "all mail" : scope,
                    null, null, null, EventType.UNSUBSCRIBED, key, null, List.of())));
        }
        return true;
    }

    /**
     * Lifts a suppression.
     *
     * @return true when there was one
     * @throws StoreException when the database fails
     */
    public boolean remove(String address, String scope) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("DELETE FROM SUPPRESSION WHERE ADDRESS = ? AND SCOPE = ?")) {
            s.setString(1, Suppressed.normalise(address));
            s.setString(2, scope);
            return s.executeUpdate() > 0;
        } catch (SQLException e) {
            throw new StoreException("could not lift the suppression of " + address, e);
        }
    }

    /**
     * @param address an address
     * @param list    a list name, or null for mail that belongs to no list
     * @return the entry that forbids sending to it (scope {@value Suppressed#ALL} first, and the address's
     *         {@link Reason#ERASED} entry under its key when erasure is set up, as the enqueue and the claim look it
     *         up), or null when none does
     * @throws StoreException when the database fails
     */
    public Entry suppressing(String address, String list) {
        try (Connection c = tables.connect()) {
            String key = Suppressed.normalise(address);
            Entry all = find(c, key, Suppressed.ALL);
            ErasureKey erased = tables.erasureKey();
            if (all == null && erased != null) {
                all = find(c, erased.key(address), Suppressed.ALL);
            }
            return all != null || list == null ? all : find(c, key, list);
        } catch (SQLException e) {
            throw new StoreException("could not look up the suppression of " + address, e);
        }
    }

    /**
     * @param addressContains part of the address to match (case-insensitive), or null for all
     * @param reason          only this reason, or null for all
     * @param offset          entries to skip, 0 or more
     * @param limit           most entries to return, 1 or more
     * @return matching entries, newest first
     * @throws StoreException when the database fails
     */
    public List<Entry> list(String addressContains, Reason reason, int offset, int limit) {
        StringBuilder sql = new StringBuilder("SELECT ADDRESS, SCOPE, REASON, MAIL_ID, DETAIL, CREATED_AT FROM SUPPRESSION");
        List<String> args = where(sql, addressContains, reason);
        sql.append(" ORDER BY CREATED_AT DESC, ADDRESS, SCOPE");
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < args.size(); i++) {
                s.setString(i + 1, args.get(i));
            }
            s.setMaxRows(offset + limit);
            List<Entry> result = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                int row = 0;
                while (r.next()) {
                    if (row++ >= offset) {
                        result.add(entry(r));
                    }
                }
            }
            return result;
        } catch (SQLException e) {
            throw new StoreException("could not list suppressions", e);
        }
    }

    /**
     * @return how many entries {@link #list} would return without paging
     * @throws StoreException when the database fails
     */
    public long count(String addressContains, Reason reason) {
        StringBuilder sql = new StringBuilder("SELECT COUNT(*) FROM SUPPRESSION");
        List<String> args = where(sql, addressContains, reason);
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < args.size(); i++) {
                s.setString(i + 1, args.get(i));
            }
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new StoreException("could not count suppressions", e);
        }
    }

    private static List<String> where(StringBuilder sql, String addressContains, Reason reason) {
        List<String> args = new ArrayList<>();
        List<String> conditions = new ArrayList<>();
        if (addressContains != null && !addressContains.isBlank()) {
            conditions.add("LOWER(ADDRESS) LIKE ? ESCAPE '!'");
            args.add("%" + addressContains.strip().toLowerCase(Locale.ROOT)
                    .replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
        }
        if (reason != null) {
            conditions.add("REASON = ?");
            args.add(reason.name());
        }
        if (!conditions.isEmpty()) {
            sql.append(" WHERE ").append(String.join(" AND ", conditions));
        }
        return args;
    }

    private static Entry find(Connection c, String key, String scope) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT ADDRESS, SCOPE, REASON, MAIL_ID, DETAIL, CREATED_AT"
                + " FROM SUPPRESSION WHERE ADDRESS = ? AND SCOPE = ?")) {
            s.setString(1, key);
            s.setString(2, scope);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? entry(r) : null;
            }
        }
    }

    private static Entry entry(ResultSet r) throws SQLException {
        long mailId = r.getLong(4);
        Long mail = r.wasNull() ? null : mailId;
        return new Entry(r.getString(1), r.getString(2), Reason.valueOf(r.getString(3)), mail, r.getString(5),
                SqlTime.get(r, 6));
    }
}
