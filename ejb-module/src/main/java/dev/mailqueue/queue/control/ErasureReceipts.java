package dev.mailqueue.queue.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The erasures' requests and receipts (V21): {@link #request} records one (MAIL_ERASURE, kept for audit, no address;
 * its addresses in MAIL_ERASURE_ADDRESS while its job runs) and suppresses its addresses for all mail under their
 * keys ({@link ErasureKey}), so that mail enqueued from then on is suppressed; the job ({@link ErasureStore}) reads
 * the addresses and adds what it removed to the receipt's counters.
 */
@ApplicationScoped
public class ErasureReceipts {

    /** Most addresses one erasure names. */
    public static final int MAX_ADDRESSES = dev.mailqueue.api.ErasureView.MAX_ADDRESSES;

    /** The receipt's counters, in MAIL_ERASURE's column order. */
    public static final List<String> COUNTERS = List.of("MAILS", "CANCELLED", "LOG_ROWS", "RECIPIENTS", "ATTACHMENTS",
            "RAW_MESSAGES", "WEBHOOK_DELIVERIES", "BOUNCE_REPORTS", "SUPPRESSIONS");

    /**
     * The receipt of one erasure, as kept for audit: no address.
     *
     * @param id             its id
     * @param requestedAt    when it was asked for
     * @param requestedBy    the operator's name
     * @param addresses      how many distinct addresses it named
     * @param upToMailId     the highest mail id when it was asked for
     * @param jobExecutionId the latest execution of its job, or null before one started
     * @param completedAt    when the job completed, or null
     * @param counts         rows removed per {@link #COUNTERS} name, in that order
     */
    public record Receipt(long id, Instant requestedAt, String requestedBy, int addresses, long upToMailId,
                          Long jobExecutionId, Instant completedAt, Map<String, Long> counts) {
    }

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables
     * @return the receipts on them, e.g. for tests outside a container
     */
    public static ErasureReceipts on(QueueTables tables) {
        ErasureReceipts receipts = new ErasureReceipts();
        receipts.tables = tables;
        return receipts;
    }

    /** @return whether erasures can be made: {@value ErasureKey#SETTING} is set */
    public boolean enabled() {
        return tables.erasureKey() != null;
    }

    /**
     * Records an erasure and suppresses its addresses for all mail under their keys, in the caller's transaction.
     *
     * @param addresses 1 to {@value #MAX_ADDRESSES} addresses, already checked against the address grammar
     * @param actor     the operator's name, for the receipt
     * @param now       now
     * @return the erasure's id
     * @throws IllegalStateException when {@value ErasureKey#SETTING} is not set
     * @throws StoreException        when the database fails
     */
    public long request(Collection<String> addresses, String actor, Instant now) {
        ErasureKey key = requireKey(tables);
        Set<String> distinct = new LinkedHashSet<>();
        addresses.forEach(a -> distinct.add(ErasureKey.normalise(a)));
        try (Connection c = tables.connect()) {
            long id = single(c, "SELECT COALESCE(MAX(ID), 0) + 1 FROM MAIL_ERASURE");
            long upTo = single(c, "SELECT COALESCE(MAX(ID), 0) FROM MAIL_MESSAGE");
            try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_ERASURE (ID, REQUESTED_AT, REQUESTED_BY,"
                    + " ADDRESSES, UP_TO_MAIL_ID) VALUES (?, ?, ?, ?, ?)")) {
                s.setLong(1, id);
                SqlTime.set(s, 2, now);
                s.setString(3, Sql.clip(actor, 255));
                s.setInt(4, distinct.size());
                s.setLong(5, upTo);
                s.executeUpdate();
            }
            try (Batch batch = new Batch(c, tables.kind(c),
                    "INSERT INTO MAIL_ERASURE_ADDRESS (ERASURE_ID, ADDRESS) VALUES (?, ?)")) {
                for (String address : distinct) {
                    batch.statement().setLong(1, id);
                    batch.statement().setString(2, address);
                    batch.add();
                }
                batch.execute();
            }
            SuppressionStore suppressions = SuppressionStore.on(tables);
            for (String address : distinct) {
                suppressions.add(c, key.key(address), Suppressed.ALL, SuppressionStore.Reason.ERASED, null, null, now);
            }
            return id;
        } catch (SQLException e) {
            throw new StoreException("could not record an erasure of " + distinct.size() + " addresses", e);
        }
    }

    /**
     * @param id          an erasure
     * @param executionId the job execution that works on it now
     * @throws StoreException when the database fails
     */
    public void started(long id, long executionId) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("UPDATE MAIL_ERASURE SET JOB_EXECUTION_ID = ? WHERE ID = ?")) {
            s.setLong(1, executionId);
            s.setLong(2, id);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("could not record the job of erasure " + id, e);
        }
    }

    /**
     * @param id an erasure
     * @return the addresses it names, lower case; none once it completed
     * @throws StoreException when the database fails
     */
    public List<String> addresses(long id) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT ADDRESS FROM MAIL_ERASURE_ADDRESS WHERE ERASURE_ID = ?"
                     + " ORDER BY ADDRESS")) {
            s.setLong(1, id);
            List<String> addresses = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    addresses.add(r.getString(1));
                }
            }
            return addresses;
        } catch (SQLException e) {
            throw new StoreException("could not read the addresses of erasure " + id, e);
        }
    }

    /**
     * @param id an erasure
     * @return its receipt, or empty when there is no such erasure
     * @throws StoreException when the database fails
     */
    public Optional<Receipt> receipt(long id) {
        List<Receipt> found = receipts("WHERE ID = ?", id, 1);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /**
     * @param max most receipts, 1 or more
     * @return the latest erasures' receipts, newest first
     * @throws StoreException when the database fails
     */
    public List<Receipt> receipts(int max) {
        return receipts("", null, max);
    }

    private List<Receipt> receipts(String where, Long id, int max) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT ID, REQUESTED_AT, REQUESTED_BY, ADDRESSES, UP_TO_MAIL_ID,"
                     + " JOB_EXECUTION_ID, COMPLETED_AT, " + String.join(", ", COUNTERS) + " FROM MAIL_ERASURE "
                     + where + " ORDER BY ID DESC")) {
            if (id != null) {
                s.setLong(1, id);
            }
            s.setMaxRows(max);
            List<Receipt> receipts = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    long execution = r.getLong(6);
                    Long executionId = r.wasNull() ? null : execution;
                    Map<String, Long> counts = new LinkedHashMap<>();
                    for (int i = 0; i < COUNTERS.size(); i++) {
                        counts.put(COUNTERS.get(i), r.getLong(8 + i));
                    }
                    receipts.add(new Receipt(r.getLong(1), SqlTime.get(r, 2), r.getString(3), r.getInt(4), r.getLong(5),
                            executionId, SqlTime.get(r, 7), counts));
                }
            }
            return receipts;
        } catch (SQLException e) {
            throw new StoreException("could not read erasures", e);
        }
    }

    /** @return the key, or an IllegalStateException naming the setting when it is unset */
    static ErasureKey requireKey(QueueTables tables) {
        ErasureKey key = tables.erasureKey();
        if (key == null) {
            throw new IllegalStateException("erasure needs the setting " + ErasureKey.SETTING);
        }
        return key;
    }

    /** Adds {@code counts} ({@link #COUNTERS} order) to the receipt's counters, on the caller's connection. */
    static void add(Connection c, long erasureId, long[] counts) throws SQLException {
        StringBuilder sql = new StringBuilder("UPDATE MAIL_ERASURE SET ");
        for (int i = 0; i < COUNTERS.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(COUNTERS.get(i)).append(" = ").append(COUNTERS.get(i)).append(" + ?");
        }
        try (PreparedStatement s = c.prepareStatement(sql.append(" WHERE ID = ?").toString())) {
            for (int i = 0; i < counts.length; i++) {
                s.setLong(i + 1, counts[i]);
            }
            s.setLong(counts.length + 1, erasureId);
            s.executeUpdate();
        }
    }

    private static long single(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql);
             ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }
}
