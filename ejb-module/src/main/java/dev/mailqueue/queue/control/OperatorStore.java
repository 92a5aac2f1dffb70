package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.RecipientStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * What operators and the retention job do to mails: requeue, cancel, delete, and delete finished mails past the
 * retention cutoff. Each change reads the mail's status first (MAIL_STATE) and is guarded where a claimer could race
 * it: a queued mail is cancelled by deleting its queue row only while no claimer holds it, and a mail being sent is
 * never deleted. Every status change writes one row of the mail's log, which records the new status and publishes its
 * event. Which statuses allow what is {@link MailLifecycle}'s to say.
 */
@ApplicationScoped
public class OperatorStore {

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables, e.g. on a data source of a test
     * @return a store on them, for use outside a container
     */
    public static OperatorStore on(QueueTables tables) {
        OperatorStore store = new OperatorStore();
        store.tables = tables;
        return store;
    }

    /**
     * Puts mails of {@link MailLifecycle#REQUEUEABLE} statuses whose content is still there (not removed by the
     * retention job's content step, V20) back in the queue as if new: QUEUED, due {@code now},
     * {@code attempts} attempts, a new expiry. Recipients an earlier attempt refused or deferred are tried again
     * (their row in the log says so: "resend only the messages that bounced", seed 004); recipients that accepted
     * the mail, or were suppressed, are kept and not sent to again.
     *
     * @param ids       the mails
     * @param now       now
     * @param attempts  attempts they get, 1 or more
     * @param expiresAt their new expiry, or null for none
     * @param server    this server, for the log
     * @param actor     who requeues, for the log, e.g. {@code operator:admin}
     * @return mails requeued (the others were in no requeueable status, or had lost their content)
     * @throws StoreException when the database fails
     */
    public int requeue(List<Long> ids, Instant now, int attempts, Instant expiresAt, String server, String actor) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            int changed = 0;
            StatusCounts.Change counts = new StatusCounts.Change();
            for (List<Long> chunk : chunks(ids)) {
                List<Long> requeued = new ArrayList<>();
                lock(c, d, chunk);
                Set<Long> emptied = contentRemoved(c, chunk);
                StateReads.statuses(c, chunk).forEach((id, status) -> {
                    if (MailLifecycle.REQUEUEABLE.contains(status) && !emptied.contains(id)) {
                        requeued.add(id);
                        counts.left(status);
                    }
                });
                if (requeued.isEmpty()) {
                    continue;
                }
                Map<Long, Map<String, RecipientStatus>> settled = StateReads.settledRecipients(c, requeued);
                try (Batch batch = new Batch(c, d, "INSERT INTO MAIL_QUEUE (MAIL_ID, PRIORITY, CREATED_AT, DUE_AT,"
                        + " ATTEMPTS_LEFT, EXPIRES_AT, SMTP_ACCOUNT, CAMPAIGN, SETTLED) SELECT ID, PRIORITY, CREATED_AT, ?,"
                        + " ?, ?, SMTP_ACCOUNT, CAMPAIGN, ? FROM MAIL_MESSAGE WHERE ID = ?")) {
                    PreparedStatement s = batch.statement();
                    for (Long id : requeued) {
                        SqlTime.set(s, 1, now);
                        s.setInt(2, attempts);
                        SqlTime.set(s, 3, expiresAt);
                        s.setInt(4, settled.containsKey(id) ? 1 : 0);
                        s.setLong(5, id);
                        batch.add();
                    }
                    batch.execute();
                }
                List<AttemptLog.Row> log = new ArrayList<>(requeued.size());
                for (Long id : requeued) {
                    List<RecipientResult> again = settled.getOrDefault(id, Map.of()).entrySet().stream()
                            .filter(e -> e.getValue() == RecipientStatus.REFUSED)
                            .map(e -> new RecipientResult(e.getKey(), RecipientStatus.DEFERRED, null,
                                    "requeued: tried again", null)).toList();
                    log.add(AttemptLog.Row.change(id, now, server, actor, AttemptOutcome.REQUEUED, MailStatus.QUEUED,
                            null, "requeued with " + attempts + " attempts").withResults(again));
                }
                AttemptLog.insert(c, d, log, counts);
                changed += requeued.size();
            }
            counts.apply(c, d);
            return changed;
        } catch (SQLException e) {
            throw new StoreException("could not requeue " + ids.size() + " mails", e);
        }
    }

    /** @return those of {@code chunk} whose content the retention job removed (V20): sent again, they would go out empty */
    private static Set<Long> contentRemoved(Connection c, List<Long> chunk) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_MESSAGE WHERE ID IN (" + marks(chunk.size())
                + ") AND CONTENT_REMOVED_AT IS NOT NULL")) {
            bindIds(s, 1, chunk);
            return new java.util.HashSet<>(readIds(s));
        }
    }

    /**
     * Cancels mails that are in one of {@code from}: a queued one leaves the queue (only while no claimer holds it),
     * a held one gets its new status; either way its log records CANCELLED and publishes {@code cancelled}.
     *
     * @param ids    the mails
     * @param from   the statuses they may be cancelled from: {@link MailLifecycle#CANCELLABLE_BY_SENDER} for a
     *               sender, {@link MailLifecycle#CANCELLABLE} for an operator
     * @param server this server, for the log
     * @param actor  who cancels, for the log, e.g. {@code operator:admin}
     * @return mails cancelled
     * @throws StoreException when the database fails
     */
    public int cancel(List<Long> ids, Set<MailStatus> from, String server, String actor) {
        if (ids.isEmpty()) {
            return 0;
        }
        Instant now = Instant.now();
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            int changed = 0;
            StatusCounts.Change counts = new StatusCounts.Change();
            for (List<Long> chunk : chunks(ids)) {
                List<Long> queued = new ArrayList<>();
                List<Long> cancelled = new ArrayList<>();
                if (from.stream().anyMatch(StatusCounts.COUNTED::contains)) {
                    lock(c, d, chunk);
                }
                StateReads.statuses(c, chunk).forEach((id, status) -> {
                    if (from.contains(status) && MailLifecycle.allows(status, MailStatus.CANCELLED)) {
                        (status == MailStatus.QUEUED ? queued : cancelled).add(id);
                        counts.left(status);
                    }
                });
                if (!queued.isEmpty()) {
                    try (Batch batch = new Batch(c, d, "DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ? AND CLAIMER IS NULL")) {
                        for (Long id : queued) {
                            batch.statement().setLong(1, id);
                            batch.add();
                        }
                        cancelled.addAll(changedRows(batch.execute(), queued));
                    }
                }
                List<AttemptLog.Row> log = new ArrayList<>(cancelled.size());
                for (Long id : cancelled) {
                    log.add(AttemptLog.Row.change(id, now, server, actor, AttemptOutcome.CANCELLED, MailStatus.CANCELLED,
                            EventType.CANCELLED, "cancelled by " + actor));
                }
                AttemptLog.insert(c, d, log, counts);
                changed += cancelled.size();
            }
            counts.apply(c, d);
            return changed;
        } catch (SQLException e) {
            throw new StoreException("could not cancel " + ids.size() + " mails", e);
        }
    }

    /**
     * Takes the row locks of {@code chunk}'s mails (MAIL_MESSAGE), held until the transaction ends, before their
     * statuses are read: two operators' changes of one finished mail (a requeue and a cancel of a held mail, two
     * cancels) then follow one another, the second reading what the first wrote, so that the mail gets one new
     * status and the counts ({@link StatusCounts}) count it once. PostgreSQL and MariaDB take them with
     * {@code SELECT ... FOR UPDATE}, which writes nothing; Derby, whose {@code FOR UPDATE} cursor lets its locks go
     * under read committed, with a write of a column to itself (nothing the content digest reads changes).
     */
    static void lock(Connection c, DatabaseKind d, List<Long> chunk) throws SQLException {
        String ids = "ID IN (" + marks(chunk.size()) + ")";
        if (d == DatabaseKind.DERBY) {
            try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_MESSAGE SET COPY_OF = COPY_OF WHERE " + ids)) {
                bindIds(s, 1, chunk);
                s.executeUpdate();
            }
            return;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_MESSAGE WHERE " + ids
                + " ORDER BY ID FOR UPDATE")) {
            bindIds(s, 1, chunk);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    r.getLong(1); // each row is locked as it is read
                }
            }
        }
    }

    /**
     * @return the ids of {@code chunk} whose guarded statement changed their row, by the batch's per-row counts
     * @throws SQLException when the driver reports no per-row counts
     */
    private static List<Long> changedRows(int[] counts, List<Long> chunk) throws SQLException {
        List<Long> changed = new ArrayList<>(chunk.size());
        for (int i = 0; i < chunk.size(); i++) {
            if (counts[i] == Statement.SUCCESS_NO_INFO) {
                throw new SQLException("the driver did not report per-row counts of a batched statement"
                        + " (MariaDB: set useBulkStmts=false on the data source)", "0A000");
            }
            if (counts[i] == 1) {
                changed.add(chunk.get(i));
            }
        }
        return changed;
    }

    /**
     * Deletes mails in any status but SENDING, with their queue row, recipients and parts (ON DELETE CASCADE),
     * their log and their webhook deliveries (deleted here: neither has a foreign key); files that other copies of a per-recipient enqueue share are passed
     * on to them.
     *
     * @param ids the mails
     * @return mails deleted
     * @throws StoreException when the database fails
     */
    public int delete(List<Long> ids) {
        return deleteWhere(ids, new Guard() {
            @Override
            public String sql(int size) {
                return "NOT EXISTS (SELECT 1 FROM MAIL_QUEUE q WHERE q.MAIL_ID = MAIL_MESSAGE.ID AND q.CLAIMER IS NOT NULL)";
            }

            @Override
            public int bind(PreparedStatement s, List<Long> chunk) {
                return 0;
            }
        }, "");
    }

    /** The condition the rows of a delete must still meet, for one chunk of ids. */
    private interface Guard {

        /** @return the condition on MAIL_MESSAGE for a chunk of {@code size} ids */
        String sql(int size);

        /** @return how many parameters it bound, from the first */
        int bind(PreparedStatement s, List<Long> chunk) throws SQLException;
    }

    /**
     * Deletes those of {@code ids} the guard still lets go, a chunk a statement, passing shared files on first
     * ({@link #passOnFiles}).
     *
     * @param guard the condition rows must still meet
     * @param what  words for the error, after the number of mails
     */
    private int deleteWhere(List<Long> ids, Guard guard, String what) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = tables.connect()) {
            int deleted = 0;
            StatusCounts.Change counts = new StatusCounts.Change();
            for (List<Long> chunk : chunks(ids)) {
                passOnFiles(c, chunk);
                try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_MESSAGE WHERE " + guard.sql(chunk.size())
                        + " AND ID IN (" + marks(chunk.size()) + ")")) {
                    bindIds(s, guard.bind(s, chunk) + 1, chunk);
                    deleted += s.executeUpdate();
                }
                counts.deleted(c, chunk); // by their log, before it goes
                // The log and the webhook deliveries of a deleted mail go with it (no foreign key: the log's was
                // dropped in V14, since checking it locked the mail's row at every dispatch; a delivery of an
                // unsubscribe belongs to no mail). A mail the guard kept still exists and keeps both.
                for (String table : new String[]{"MAIL_ATTEMPT", "WEBHOOK_DELIVERY"}) {
                    try (PreparedStatement s = c.prepareStatement("DELETE FROM " + table + " WHERE MAIL_ID IN ("
                            + marks(chunk.size()) + ") AND NOT EXISTS (SELECT 1 FROM MAIL_MESSAGE m WHERE m.ID = "
                            + table + ".MAIL_ID)")) {
                        bindIds(s, 1, chunk);
                        s.executeUpdate();
                    }
                }
            }
            counts.apply(c, tables.kind(c));
            return deleted;
        } catch (SQLException e) {
            throw new StoreException("could not delete " + ids.size() + what + " mails", e);
        }
    }

    /**
     * Before mails are deleted, or their content removed ({@link ContentStore}). The files of a per-recipient
     * enqueue are stored once, with its first copy, which every copy names in COPY_OF (itself included). When a
     * first copy is among the mails to delete and other copies of its group that still have their content are not,
     * the lowest of those takes the files over and becomes the one all of the group name, the first copy too: so
     * whether or not the guarded delete then takes the first copy, every copy that stays still finds its files.
     * A copy whose content was removed needs no files and inherits none. (A group queued before the files were
     * shared holds them per copy: the heir keeps its own.)
     *
     * @param c     the connection of the delete, in its transaction
     * @param chunk mails about to be deleted or emptied
     * @throws SQLException when the database fails
     */
    static void passOnFiles(Connection c, List<Long> chunk) throws SQLException {
        Map<Long, Long> heirs = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT COPY_OF, MIN(ID) FROM MAIL_MESSAGE WHERE COPY_OF IN ("
                + marks(chunk.size()) + ") AND ID NOT IN (" + marks(chunk.size()) + ")"
                + " AND (ATTACHMENT_COUNT IS NULL OR ATTACHMENT_COUNT > 0) AND CONTENT_REMOVED_AT IS NULL GROUP BY COPY_OF")) {
            bindIds(s, 1, chunk);
            bindIds(s, 1 + chunk.size(), chunk);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    heirs.put(r.getLong(1), r.getLong(2));
                }
            }
        }
        for (Map.Entry<Long, Long> group : heirs.entrySet()) {
            long first = group.getKey();
            long heir = group.getValue();
            boolean heirHasOwn;
            try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM MAIL_ATTACHMENT WHERE MAIL_ID = ?")) {
                s.setLong(1, heir);
                try (ResultSet r = s.executeQuery()) {
                    heirHasOwn = r.next() && r.getLong(1) > 0;
                }
            }
            if (!heirHasOwn) {
                try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_ATTACHMENT SET MAIL_ID = ? WHERE MAIL_ID = ?")) {
                    s.setLong(1, heir);
                    s.setLong(2, first);
                    s.executeUpdate();
                }
            }
            try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_MESSAGE SET COPY_OF = ? WHERE COPY_OF = ?")) {
                s.setLong(1, heir);
                s.setLong(2, first);
                s.executeUpdate();
            }
        }
    }

    /**
     * The retention job's delete: those of {@code ids} that are still finished ({@link MailLifecycle#RETAINED_UNTIL_CUTOFF})
     * and were enqueued and finished before the cutoff (a mail requeued since it was read stays).
     *
     * @param ids    mail ids
     * @param cutoff mails whose last moment is before this may go
     * @return mails deleted
     * @throws StoreException when the database fails
     */
    public int deleteFinished(List<Long> ids, Instant cutoff) {
        // Through a derived table: MariaDB refuses a subquery on the table a DELETE deletes from (error 1093);
        // restricted to the chunk, so that it is worked out for the chunk's mails only.
        return deleteWhere(ids, new Guard() {
            @Override
            public String sql(int size) {
                return "ID IN (SELECT f.MAIL_ID FROM (" + FINISHED_BEFORE + " AND a.MAIL_ID IN (" + marks(size) + ")) f)";
            }

            @Override
            public int bind(PreparedStatement s, List<Long> chunk) throws SQLException {
                SqlTime.set(s, 1, cutoff);
                SqlTime.set(s, 2, cutoff);
                bindIds(s, 3, chunk);
                return 2 + chunk.size();
            }
        }, " finished");
    }

    /**
     * The retention job's delete of log rows that belong to no mail (an unsubscribe names an address and a list):
     * those written before the cutoff, with their webhook deliveries, delivered or not, as a mail's events go
     * with the mail.
     *
     * @param cutoff rows written before this go
     * @return rows deleted
     * @throws StoreException when the database fails
     */
    public int deleteMaillessEventsBefore(Instant cutoff) {
        try (Connection c = tables.connect()) {
            try (PreparedStatement s = c.prepareStatement("DELETE FROM WEBHOOK_DELIVERY WHERE MAIL_ID IS NULL"
                    + " AND ATTEMPT_ID IN (SELECT a.ID FROM MAIL_ATTEMPT a WHERE a.MAIL_ID IS NULL AND a.FINISHED_AT < ?)")) {
                SqlTime.set(s, 1, cutoff);
                s.executeUpdate();
            }
            try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_ATTEMPT WHERE MAIL_ID IS NULL AND FINISHED_AT < ?")) {
                SqlTime.set(s, 1, cutoff);
                return s.executeUpdate();
            }
        } catch (SQLException e) {
            throw new StoreException("could not delete the events of no mail before " + cutoff, e);
        }
    }

    /**
     * The retention rule as SQL, the ids of mails that may go: finished in a status retention deletes, enqueued and
     * finished before the cutoff, not in the queue; two {@code ?}s, each the cutoff. It reads the log's rows that
     * record a status (their index) rather than MAIL_STATE, which would work out every mail's state.
     */
    static final String FINISHED_BEFORE = "SELECT a.MAIL_ID FROM MAIL_ATTEMPT a JOIN MAIL_MESSAGE m ON m.ID = a.MAIL_ID"
            + " WHERE a.MAIL_STATUS IN (" + MailLifecycle.literals(MailLifecycle.RETAINED_UNTIL_CUTOFF) + ")"
            + " AND a.FINISHED_AT < ? AND m.CREATED_AT < ?"
            + " AND " + MailLifecycle.LATEST_STATUS_OUT_OF_QUEUE;

    /**
     * @param cutoff  mails whose last moment is before this may go
     * @param afterId only ids greater than this, 0 or more (keyset paging)
     * @param max     most ids, 1 or more
     * @return ids of mails the retention job may delete, ascending
     * @throws StoreException when the database fails
     */
    public List<Long> finishedBefore(Instant cutoff, long afterId, int max) {
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            try (PreparedStatement s = c.prepareStatement(d.firstRows(
                    FINISHED_BEFORE + " AND a.MAIL_ID > ? ORDER BY a.MAIL_ID", max))) {
                SqlTime.set(s, 1, cutoff);
                SqlTime.set(s, 2, cutoff);
                s.setLong(3, afterId);
                return readIds(s);
            }
        } catch (SQLException e) {
            throw new StoreException("could not find finished mails", e);
        }
    }
}
