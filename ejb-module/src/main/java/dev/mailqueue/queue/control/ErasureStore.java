package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AddressLists;
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

import static dev.mailqueue.queue.control.Sql.bindIds;
import static dev.mailqueue.queue.control.Sql.chunks;
import static dev.mailqueue.queue.control.Sql.marks;

/**
 * Erasure of people's data (issue 51, point 4; GDPR art. 17), as the {@code mail-erasure} job does it, in three
 * moves:
 * <ol>
 *   <li>{@link #request}: the receipt (MAIL_ERASURE, V21), the addresses while the job runs (MAIL_ERASURE_ADDRESS),
 *       and an {@link SuppressionStore.Reason#ERASED} entry for all mail under each address's key
 *       ({@link ErasureKey}), so that mail enqueued from then on is suppressed;</li>
 *   <li>{@link #find} and {@link #erase}, a window of mail ids at a time: every mail up to the request's highest id
 *       that names one of the addresses as sender (FROM_ADDRESS), Reply-To or recipient (To, Cc, Bcc) is deleted
 *       whole, queued and held mail too (a queued mail is cancelled by its delete: it leaves the queue and is never
 *       sent), with its recipients, header fields, attachments, raw bytes, log, events, webhook deliveries and
 *       bounce reports; a mail being sent at that moment is left for the next try;</li>
 *   <li>{@link #finish}: the events of no mail that name an address (an unsubscribe's) with their webhook
 *       deliveries, and every suppression entry of the address in the clear; the receipt gets its completion time
 *       and the addresses are deleted.</li>
 * </ol>
 * A mail sent to a person among others is deleted for all of them: its content was theirs too. Addresses are
 * compared in lower case ({@link ErasureKey#normalise}). Mail that only mentions an address elsewhere (in a body or a
 * header field) is not searched.
 */
@ApplicationScoped
public class ErasureStore {

    /** Most addresses one erasure names. */
    public static final int MAX_ADDRESSES = dev.mailqueue.api.ErasureView.MAX_ADDRESSES;

    /** Mail ids one statement of {@link #find} reads: a range of the primary key. */
    public static final int WINDOW = 250_000;

    /** The address columns of MAIL_MESSAGE an erasure looks in: one address each, then lists of them. */
    private static final List<String> SINGLE = List.of("FROM_ADDRESS", "REPLY_TO");
    private static final List<String> LISTS = List.of("TO_ADDRESSES", "CC_ADDRESSES", "BCC_ADDRESSES");

    /** The receipt's counters, in MAIL_ERASURE's column order. */
    public static final List<String> COUNTERS = List.of("MAILS", "CANCELLED", "LOG_ROWS", "RECIPIENTS", "ATTACHMENTS",
            "RAW_MESSAGES", "WEBHOOK_DELIVERIES", "BOUNCE_REPORTS", "SUPPRESSIONS");

    /** The tables of a mail's parts the receipt counts, with the counter each goes to. */
    private static final Map<String, String> PART_COUNTERS = Map.of("MAIL_ATTEMPT", "LOG_ROWS",
            "MAIL_RECIPIENT", "RECIPIENTS", "MAIL_ATTACHMENT", "ATTACHMENTS", "MAIL_RAW", "RAW_MESSAGES",
            "WEBHOOK_DELIVERY", "WEBHOOK_DELIVERIES");
    private static final List<String> PARTS = List.copyOf(PART_COUNTERS.keySet());

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

    /**
     * One window of {@link #find}.
     *
     * @param mailIds   the mails in it that name an address, ascending
     * @param scannedTo the window's highest id: the next window starts after it
     */
    public record Found(List<Long> mailIds, long scannedTo) {
    }

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables
     * @return a store on them, e.g. for tests outside a container
     */
    public static ErasureStore on(QueueTables tables) {
        ErasureStore store = new ErasureStore();
        store.tables = tables;
        return store;
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
        ErasureKey key = requireKey();
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

    /**
     * Reads one window of mail ids, {@code afterId} (exclusive) to {@value #WINDOW} further or {@code upToId}
     * (inclusive), whichever is lower, for mails that name one of the addresses: the database narrows by
     * {@code LIKE} on the address columns, and each candidate's columns are then split into addresses and compared
     * whole here ({@code al@example.com} does not match {@code sal@example.com}).
     *
     * @param addresses 1 to {@value #MAX_ADDRESSES} addresses, lower case
     * @param afterId   0 or more
     * @param upToId    the erasure's highest mail id
     * @return the window's matches and its end
     * @throws StoreException when the database fails
     */
    public Found find(List<String> addresses, long afterId, long upToId) {
        long to = Math.min(upToId, afterId + WINDOW);
        if (to <= afterId || addresses.isEmpty()) {
            return new Found(List.of(), Math.max(afterId, to));
        }
        List<String> columns = new ArrayList<>(SINGLE);
        columns.addAll(LISTS);
        List<String> conditions = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            for (String column : columns) {
                conditions.add("LOWER(" + column + ") LIKE ? ESCAPE '!'");
            }
        }
        // The window's ends as literals (numbers, never text): with them as parameters PostgreSQL plans a generic
        // range and reads it in one process; with literals it sees a quarter of a million rows and reads them in
        // parallel workers (0.29 s a window against 0.51 s, measured on 10 million mails).
        String sql = "SELECT ID, " + String.join(", ", columns) + " FROM MAIL_MESSAGE WHERE ID > " + afterId
                + " AND ID <= " + to + " AND (" + String.join(" OR ", conditions) + ") ORDER BY ID";
        Set<String> wanted = Set.copyOf(addresses);
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement(sql)) {
            int p = 1;
            for (String address : addresses) {
                String pattern = "%" + address.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
                for (int i = 0; i < columns.size(); i++) {
                    s.setString(p++, pattern);
                }
            }
            List<Long> ids = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    if (names(r, wanted)) {
                        ids.add(r.getLong(1));
                    }
                }
            }
            return new Found(ids, to);
        } catch (SQLException e) {
            throw new StoreException("could not search mails " + (afterId + 1) + " to " + to + " for an erasure", e);
        }
    }

    /** @return whether the row's address columns (after the id) hold one of the wanted addresses whole */
    private static boolean names(ResultSet r, Set<String> wanted) throws SQLException {
        for (int i = 0; i < SINGLE.size(); i++) {
            String value = r.getString(2 + i);
            if (value != null && wanted.contains(ErasureKey.normalise(bare(value)))) {
                return true;
            }
        }
        for (int i = 0; i < LISTS.size(); i++) {
            for (String address : AddressLists.split(r.getString(2 + SINGLE.size() + i))) {
                if (wanted.contains(ErasureKey.normalise(address))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return the address of {@code Name <address>}, or the value itself */
    private static String bare(String value) {
        int open = value.lastIndexOf('<');
        return open >= 0 && value.endsWith(">") ? value.substring(open + 1, value.length() - 1) : value;
    }

    /**
     * Deletes mails an erasure found, with everything that is theirs, in the caller's transaction, and adds what went
     * to the receipt's counters. A mail a claimer holds (being sent) stays, and is returned: its send ends within its
     * lease, and then it can go.
     *
     * @param erasureId the erasure
     * @param mailIds   mails {@link #find} returned
     * @return those still there (being sent)
     * @throws StoreException when the database fails
     */
    public List<Long> erase(long erasureId, List<Long> mailIds) {
        if (mailIds.isEmpty()) {
            return List.of();
        }
        long[] counts = new long[COUNTERS.size()];
        Map<Long, MailStatus> before = new LinkedHashMap<>();
        try (Connection c = tables.connect()) {
            for (List<Long> chunk : chunks(mailIds)) {
                OperatorStore.lock(c, tables.kind(c), chunk);
                before.putAll(StateReads.statuses(c, chunk));
                for (String table : PARTS) {
                    counts[COUNTERS.indexOf(PART_COUNTERS.get(table))] += count(c, table, chunk);
                }
                try (PreparedStatement s = c.prepareStatement("DELETE FROM BOUNCE_REPORT WHERE MAIL_ID IN ("
                        + marks(chunk.size()) + ")")) {
                    bindIds(s, 1, chunk);
                    counts[COUNTERS.indexOf("BOUNCE_REPORTS")] += s.executeUpdate();
                }
            }
            counts[COUNTERS.indexOf("MAILS")] = OperatorStore.on(tables).delete(mailIds);
            List<Long> left = new ArrayList<>();
            for (List<Long> chunk : chunks(mailIds)) {
                List<Long> there = new ArrayList<>(StateReads.statuses(c, chunk).keySet());
                left.addAll(there);
                // What the erasure took is what the mails held before less what they hold now: the rows of a mail
                // being sent stay with it, and files a copy to someone else shares went on to that copy.
                for (String table : there.isEmpty() ? List.<String>of() : PARTS) {
                    counts[COUNTERS.indexOf(PART_COUNTERS.get(table))] -= count(c, table, there);
                }
            }
            before.forEach((id, status) -> {
                if (MailLifecycle.CANCELLABLE.contains(status) && !left.contains(id)) {
                    counts[COUNTERS.indexOf("CANCELLED")]++;
                }
            });
            add(c, erasureId, counts);
            return left;
        } catch (SQLException e) {
            throw new StoreException("could not erase " + mailIds.size() + " mails", e);
        }
    }

    /**
     * The erasure's last move, in the caller's transaction: deletes the events of no mail that name one of its
     * addresses (an unsubscribe's) with their webhook deliveries, and every suppression entry of the addresses in the
     * clear (their {@link SuppressionStore.Reason#ERASED} entry under the key stays, and is added again if it was
     * lifted meanwhile); stamps the receipt's completion time and deletes the addresses.
     *
     * @param erasureId the erasure
     * @param now       now
     * @throws IllegalStateException when {@value ErasureKey#SETTING} is not set
     * @throws StoreException        when the database fails
     */
    public void finish(long erasureId, Instant now) {
        ErasureKey key = requireKey();
        List<String> addresses = addresses(erasureId);
        long[] counts = new long[COUNTERS.size()];
        try (Connection c = tables.connect()) {
            if (!addresses.isEmpty()) {
                String in = "LOWER(%s) IN (" + marks(addresses.size()) + ")";
                List<Long> events = new ArrayList<>();
                try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_ATTEMPT WHERE MAIL_ID IS NULL AND "
                        + in.formatted("RECIPIENT"))) {
                    bindTexts(s, 1, addresses);
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            events.add(r.getLong(1));
                        }
                    }
                }
                for (List<Long> chunk : chunks(events)) {
                    counts[COUNTERS.indexOf("WEBHOOK_DELIVERIES")] += deleteIn(c,
                            "DELETE FROM WEBHOOK_DELIVERY WHERE MAIL_ID IS NULL AND ATTEMPT_ID IN", chunk);
                    counts[COUNTERS.indexOf("LOG_ROWS")] += deleteIn(c,
                            "DELETE FROM MAIL_ATTEMPT WHERE MAIL_ID IS NULL AND ID IN", chunk);
                }
                try (PreparedStatement s = c.prepareStatement("DELETE FROM SUPPRESSION WHERE "
                        + in.formatted("ADDRESS"))) {
                    bindTexts(s, 1, addresses);
                    counts[COUNTERS.indexOf("SUPPRESSIONS")] += s.executeUpdate();
                }
                SuppressionStore suppressions = SuppressionStore.on(tables);
                for (String address : addresses) {
                    suppressions.add(c, key.key(address), Suppressed.ALL, SuppressionStore.Reason.ERASED, null, null,
                            now);
                }
            }
            add(c, erasureId, counts);
            try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_ERASURE SET COMPLETED_AT = ? WHERE ID = ?")) {
                SqlTime.set(s, 1, now);
                s.setLong(2, erasureId);
                s.executeUpdate();
            }
            try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_ERASURE_ADDRESS WHERE ERASURE_ID = ?")) {
                s.setLong(1, erasureId);
                s.executeUpdate();
            }
        } catch (SQLException e) {
            throw new StoreException("could not finish erasure " + erasureId, e);
        }
    }

    /**
     * @param ids mails
     * @return those of them that still exist
     * @throws StoreException when the database fails
     */
    public List<Long> existing(List<Long> ids) {
        List<Long> existing = new ArrayList<>();
        try (Connection c = tables.connect()) {
            for (List<Long> chunk : chunks(ids)) {
                try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_MESSAGE WHERE ID IN ("
                        + marks(chunk.size()) + ") ORDER BY ID")) {
                    bindIds(s, 1, chunk);
                    existing.addAll(Sql.readIds(s));
                }
            }
            return existing;
        } catch (SQLException e) {
            throw new StoreException("could not read " + ids.size() + " mails", e);
        }
    }

    private ErasureKey requireKey() {
        ErasureKey key = tables.erasureKey();
        if (key == null) {
            throw new IllegalStateException("erasure needs the setting " + ErasureKey.SETTING);
        }
        return key;
    }

    private static void add(Connection c, long erasureId, long[] counts) throws SQLException {
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

    private static long count(Connection c, String table, List<Long> chunk) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE MAIL_ID IN ("
                + marks(chunk.size()) + ")")) {
            bindIds(s, 1, chunk);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private static int deleteIn(Connection c, String delete, List<Long> chunk) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(delete + " (" + marks(chunk.size()) + ")")) {
            bindIds(s, 1, chunk);
            return s.executeUpdate();
        }
    }

    private static long single(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql);
             ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }

    private static void bindTexts(PreparedStatement s, int from, List<String> values) throws SQLException {
        for (int i = 0; i < values.size(); i++) {
            s.setString(from + i, values.get(i));
        }
    }
}
