package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * What operators and the retention job do to mails: requeue, cancel, delete, and delete finished mails
 * past the retention cutoff. Each statement is guarded by the statuses it applies to, so it never
 * touches a mail a claimer holds under a lease.
 */
@ApplicationScoped
public class OperatorStore {

    /** Statuses a mail can be requeued from. CANCELLED too: an operator who withdrew a mail by mistake. */
    public static final Set<MailStatus> REQUEUEABLE = EnumSet.of(MailStatus.FAILED, MailStatus.EXPIRED,
            MailStatus.HELD, MailStatus.CANCELLED);

    /** Statuses an operator can cancel a mail from: not yet claimed, or held for review. */
    public static final Set<MailStatus> CANCELLABLE = EnumSet.of(MailStatus.QUEUED, MailStatus.HELD);

    /** Statuses a mail can be deleted in: all but SENDING, whose claimer holds the lease. */
    public static final Set<MailStatus> DELETABLE = EnumSet.complementOf(EnumSet.of(MailStatus.SENDING));

    /** Final statuses the retention job deletes; live and HELD mails are never deleted. */
    public static final Set<MailStatus> RETAINED_UNTIL_CUTOFF = EnumSet.of(MailStatus.SENT, MailStatus.FAILED,
            MailStatus.CANCELLED, MailStatus.EXPIRED, MailStatus.SUPPRESSED);

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
     * Puts FAILED, EXPIRED, HELD and CANCELLED mails back in the queue as if new: QUEUED, due
     * {@code now}, {@code attempts} attempts, a new expiry, no lease. Recipients an earlier attempt
     * refused or deferred are forgotten (those suppressed at enqueue stay suppressed), so the resend tries them again ("resend only the messages that
     * bounced", seed 004); recipients that accepted the mail are kept and not sent to again. Each row is
     * changed by its own guarded UPDATE, and recipient rows are deleted only for the rows that UPDATE
     * changed, under the row lock it holds until commit: a concurrent claim can never read a mail
     * half-requeued.
     *
     * @param ids       the mails
     * @param now       now
     * @param attempts  attempts they get, 1 or more
     * @param expiresAt their new expiry, or null for none
     * @return rows changed (the others were in no requeueable status)
     * @throws StoreException when the database fails
     */
    public int requeue(List<Long> ids, Instant now, int attempts, Instant expiresAt) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = tables.connect()) {
            int changed = 0;
            for (List<Long> chunk : chunks(ids)) {
                List<Long> requeued = new ArrayList<>(chunk.size());
                try (Batch batch = new Batch(c, tables.dialect(c).kind(), "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED',"
                        + " ATTEMPTS_REMAINING = ?, NOT_BEFORE = ?, EXPIRES_AT = ?, LEASE_OWNER = NULL,"
                        + " LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL WHERE ID = ? AND STATUS IN ("
                        + literals(REQUEUEABLE) + ")")) {
                    PreparedStatement s = batch.statement();
                    for (Long id : chunk) {
                        s.setInt(1, attempts);
                        SqlTime.set(s, 2, now);
                        SqlTime.set(s, 3, expiresAt);
                        s.setLong(4, id);
                        batch.add();
                    }
                    requeued.addAll(changedRows(batch.execute(), chunk));
                }
                if (!requeued.isEmpty()) {
                    try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_RECIPIENT WHERE STATUS NOT IN ('SENT', 'SUPPRESSED')"
                            + " AND MAIL_ID IN (" + marks(requeued.size()) + ")")) {
                        bindIds(s, 1, requeued);
                        s.executeUpdate();
                    }
                }
                changed += requeued.size();
            }
            return changed;
        } catch (SQLException e) {
            throw new StoreException("could not requeue " + ids.size() + " mails", e);
        }
    }

    /**
     * Cancels mails that are in one of {@code from}.
     *
     * @param ids  the mails
     * @param from the statuses they may be cancelled from: {@link MailStatus#QUEUED} for a sender,
     *             {@link #CANCELLABLE} for an operator
     * @return rows changed
     * @throws StoreException when the database fails
     */
    public int cancel(List<Long> ids, Set<MailStatus> from) {
        if (ids.isEmpty()) {
            return 0;
        }
        Instant now = Instant.now();
        try (Connection c = tables.connect()) {
            Dialect d = tables.dialect(c);
            int changed = 0;
            for (List<Long> chunk : chunks(ids)) {
                List<Long> cancelled;
                try (Batch batch = new Batch(c, d.kind(), "UPDATE MAIL_MESSAGE SET STATUS = 'CANCELLED' WHERE ID = ?"
                        + " AND STATUS IN (" + literals(from) + ")")) {
                    for (Long id : chunk) {
                        batch.statement().setLong(1, id);
                        batch.add();
                    }
                    cancelled = changedRows(batch.execute(), chunk);
                }
                List<EventLog.Row> events = new ArrayList<>(cancelled.size());
                for (Long id : cancelled) {
                    events.add(EventLog.Row.of(id, EventType.CANCELLED, now, null, null));
                }
                EventLog.insert(c, d, events);
                changed += cancelled.size();
            }
            return changed;
        } catch (SQLException e) {
            throw new StoreException("could not cancel " + ids.size() + " mails", e);
        }
    }

    /**
     * @return the ids of {@code chunk} whose guarded UPDATE changed their row, by the batch's per-row counts
     * @throws SQLException when the driver reports no per-row counts
     */
    private static List<Long> changedRows(int[] counts, List<Long> chunk) throws SQLException {
        List<Long> changed = new ArrayList<>(chunk.size());
        for (int i = 0; i < chunk.size(); i++) {
            if (counts[i] == Statement.SUCCESS_NO_INFO) {
                throw new SQLException("the driver did not report per-row counts of a batched UPDATE"
                        + " (MariaDB: set useBulkStmts=false on the data source)", "0A000");
            }
            if (counts[i] == 1) {
                changed.add(chunk.get(i));
            }
        }
        return changed;
    }

    /**
     * Deletes mails in any status but SENDING, with their attempt log, recipients and parts
     * (ON DELETE CASCADE); files that other copies of a per-recipient enqueue share are passed on to them.
     *
     * @param ids the mails
     * @return mails deleted
     * @throws StoreException when the database fails
     */
    public int delete(List<Long> ids) {
        return deleteWhere(ids, "STATUS IN (" + literals(DELETABLE) + ")", 0, s -> { }, "");
    }

    /** Binds the parameters of a delete's guard, from the first. */
    @FunctionalInterface
    private interface GuardBinder {
        void bind(PreparedStatement s) throws SQLException;
    }

    /**
     * Deletes those of {@code ids} the guard still lets go, a chunk a statement, passing shared files on
     * first ({@link #passOnFiles}).
     *
     * @param guard           the condition rows must still meet, with {@code guardParameters} {@code ?}s
     * @param guardParameters how many parameters the guard has, bound by {@code binder} from the first
     * @param what            words for the error, after the number of mails
     */
    private int deleteWhere(List<Long> ids, String guard, int guardParameters, GuardBinder binder, String what) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = tables.connect()) {
            int deleted = 0;
            for (List<Long> chunk : chunks(ids)) {
                passOnFiles(c, chunk);
                try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_MESSAGE WHERE " + guard
                        + " AND ID IN (" + marks(chunk.size()) + ")")) {
                    binder.bind(s);
                    bindIds(s, guardParameters + 1, chunk);
                    deleted += s.executeUpdate();
                }
                // The events of a deleted mail go with it, delivered or not (MAIL_EVENT has no foreign key:
                // an unsubscribe's event belongs to no mail).
                for (String table : List.of("WEBHOOK_DELIVERY", "MAIL_EVENT")) {
                    try (PreparedStatement s = c.prepareStatement("DELETE FROM " + table + " WHERE MAIL_ID IN ("
                            + marks(chunk.size()) + ") AND NOT EXISTS (SELECT 1 FROM MAIL_MESSAGE m WHERE m.ID = "
                            + table + ".MAIL_ID)")) {
                        bindIds(s, 1, chunk);
                        s.executeUpdate();
                    }
                }
            }
            return deleted;
        } catch (SQLException e) {
            throw new StoreException("could not delete " + ids.size() + what + " mails", e);
        }
    }

    /**
     * Before mails are deleted. The files of a per-recipient enqueue are stored once, with its first
     * copy, which every copy names in COPY_OF (itself included). When a first copy is among the mails to
     * delete and other copies of its group are not, the lowest of those takes the files over and becomes
     * the one all of the group name, the first copy too: so whether or not the guarded delete then takes
     * the first copy, every copy that stays still finds its files. (A group queued before the files were
     * shared holds them per copy: the heir keeps its own.)
     *
     * @param c     the connection of the delete, in its transaction
     * @param chunk mails about to be deleted
     * @throws SQLException when the database fails
     */
    private static void passOnFiles(Connection c, List<Long> chunk) throws SQLException {
        Map<Long, Long> heirs = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT COPY_OF, MIN(ID) FROM MAIL_MESSAGE WHERE COPY_OF IN ("
                + marks(chunk.size()) + ") AND ID NOT IN (" + marks(chunk.size()) + ")"
                + " AND (ATTACHMENT_COUNT IS NULL OR ATTACHMENT_COUNT > 0) GROUP BY COPY_OF")) {
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
     * The retention job's delete: those of {@code ids} that are still finished and whose every time lies
     * before the cutoff (a mail requeued since it was read stays).
     *
     * @param ids    mail ids
     * @param cutoff rows whose last moment is before this may go
     * @return mails deleted
     * @throws StoreException when the database fails
     */
    public int deleteFinished(List<Long> ids, Instant cutoff) {
        return deleteWhere(ids, FINISHED_BEFORE, 4, s -> {
            for (int i = 1; i <= 4; i++) {
                SqlTime.set(s, i, cutoff);
            }
        }, " finished");
    }

    /**
     * The retention job's delete of events that belong to no mail (an unsubscribe's {@code unsubscribed}
     * event names an address and a list): those that happened before the cutoff, with their webhook
     * delivery log, delivered or not, as a mail's events go with the mail.
     *
     * @param cutoff events that happened before this go
     * @return events deleted
     * @throws StoreException when the database fails
     */
    public int deleteMaillessEventsBefore(Instant cutoff) {
        try (Connection c = tables.connect()) {
            try (PreparedStatement s = c.prepareStatement("DELETE FROM WEBHOOK_DELIVERY WHERE MAIL_ID IS NULL"
                    + " AND EVENT_ID IN (SELECT e.ID FROM MAIL_EVENT e WHERE e.MAIL_ID IS NULL AND e.OCCURRED_AT < ?)")) {
                SqlTime.set(s, 1, cutoff);
                s.executeUpdate();
            }
            try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_EVENT WHERE MAIL_ID IS NULL AND OCCURRED_AT < ?")) {
                SqlTime.set(s, 1, cutoff);
                return s.executeUpdate();
            }
        } catch (SQLException e) {
            throw new StoreException("could not delete the events of no mail before " + cutoff, e);
        }
    }

    /**
     * The retention rule as SQL: a final status, and every time of the row before the cutoff;
     * four {@code ?}s, each the cutoff.
     */
    static final String FINISHED_BEFORE = "STATUS IN (" + literals(RETAINED_UNTIL_CUTOFF) + ") AND CREATED_AT < ?"
            + " AND NOT_BEFORE < ? AND (LAST_ATTEMPT_AT IS NULL OR LAST_ATTEMPT_AT < ?)"
            + " AND (SENT_AT IS NULL OR SENT_AT < ?)";

    /**
     * @param cutoff  rows whose last moment is before this may go
     * @param afterId only ids greater than this, 0 or more (keyset paging)
     * @param max     most ids, 1 or more
     * @return ids of mails the retention job may delete, ascending
     * @throws StoreException when the database fails
     */
    public List<Long> finishedBefore(Instant cutoff, long afterId, int max) {
        try (Connection c = tables.connect()) {
            Dialect d = tables.dialect(c);
            try (PreparedStatement s = c.prepareStatement(d.kind().firstRows(
                    "SELECT ID FROM MAIL_MESSAGE WHERE " + FINISHED_BEFORE + " AND ID > ? ORDER BY ID", max))) {
                for (int i = 1; i <= 4; i++) {
                    SqlTime.set(s, i, cutoff);
                }
                s.setLong(5, afterId);
                return readIds(s);
            }
        } catch (SQLException e) {
            throw new StoreException("could not find finished mails", e);
        }
    }
}
