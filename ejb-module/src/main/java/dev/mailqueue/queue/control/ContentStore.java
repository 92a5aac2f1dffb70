package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * The retention job's removal of a finished mail's content before the mail itself goes
 * ({@code mailqueue.retention.content-days}, shorter than {@code mailqueue.retention.days}; V20): its text and HTML
 * bodies are set to NULL, its attachments and raw bytes deleted, and {@code CONTENT_REMOVED_AT} stamped. What stays
 * until the mail is deleted: its addresses, subject, header fields, tags, log and recipients' outcomes (the
 * metadata a console search, a bounce and the statistics read). A mail whose content is gone is never sent again:
 * {@link OperatorStore#requeue} refuses it. Which mails qualify is the one rule the delete uses
 * ({@code OperatorStore.FINISHED_BEFORE}: finished in a {@link MailLifecycle#RETAINED_UNTIL_CUTOFF} status, out of the
 * queue), with a cutoff of its own.
 */
@ApplicationScoped
public class ContentStore {

    /** The {@code RETENTION_MARK} row of the content step. */
    static final String CONTENT_MARK = "content";

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables
     * @return a store on them, for use outside a container
     */
    public static ContentStore on(QueueTables tables) {
        ContentStore store = new ContentStore();
        store.tables = tables;
        return store;
    }

    /**
     * The mails whose content may go among those that finished in one span of time: the log row that gave each its
     * final status has a {@code FINISHED_AT} in {@code [from, until)}. Reading the history a span at a time (the
     * retention job's content step reads an hour a query) costs what the span holds, not what the log holds.
     *
     * @param from    the span's start, inclusive
     * @param until   the span's end, exclusive; no later than the content cutoff
     * @param afterId only ids greater than this, 0 or more (keyset paging within the span)
     * @param max     most ids, 1 or more
     * @return ids, ascending, of finished mails out of the queue that still have their content
     * @throws StoreException when the database fails
     */
    public List<Long> removable(Instant from, Instant until, long afterId, int max) {
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            try (PreparedStatement s = c.prepareStatement(d.firstRows(OperatorStore.FINISHED_BEFORE
                    + " AND a.FINISHED_AT >= ? AND m.CONTENT_REMOVED_AT IS NULL AND a.MAIL_ID > ? ORDER BY a.MAIL_ID", max))) {
                SqlTime.set(s, 1, until);
                SqlTime.set(s, 2, until);
                SqlTime.set(s, 3, from);
                s.setLong(4, afterId);
                return readIds(s);
            }
        } catch (SQLException e) {
            throw new StoreException("could not find mails whose content may go, finished from " + from + " to " + until, e);
        }
    }

    /**
     * Removes the content of those of {@code ids} that still qualify once locked: finished before the cutoff, out of
     * the queue, with content (a mail requeued since it was read keeps it). Files that other copies of a
     * per-recipient enqueue share and still need are passed on to one of them first
     * ({@code OperatorStore.passOnFiles}).
     *
     * @param ids    mail ids
     * @param cutoff mails whose last moment is before this lose their content
     * @param now    the time stamped in {@code CONTENT_REMOVED_AT}
     * @return mails whose content was removed
     * @throws StoreException when the database fails
     */
    public int remove(List<Long> ids, Instant cutoff, Instant now) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            int removed = 0;
            for (List<Long> chunk : chunks(ids)) {
                // Locked first, as a requeue locks them: then read in a new statement (read committed), a requeue
                // that committed before is seen and one that comes later waits, and finds the content gone.
                OperatorStore.lock(c, d, chunk);
                List<Long> due;
                try (PreparedStatement s = c.prepareStatement(OperatorStore.FINISHED_BEFORE
                        + " AND m.CONTENT_REMOVED_AT IS NULL AND a.MAIL_ID IN (" + marks(chunk.size()) + ")")) {
                    SqlTime.set(s, 1, cutoff);
                    SqlTime.set(s, 2, cutoff);
                    bindIds(s, 3, chunk);
                    due = readIds(s);
                }
                if (due.isEmpty()) {
                    continue;
                }
                OperatorStore.passOnFiles(c, due);
                for (String table : new String[]{"MAIL_ATTACHMENT", "MAIL_RAW"}) {
                    try (PreparedStatement s = c.prepareStatement("DELETE FROM " + table + " WHERE MAIL_ID IN ("
                            + marks(due.size()) + ")")) {
                        bindIds(s, 1, due);
                        s.executeUpdate();
                    }
                }
                try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_MESSAGE SET TEXT_BODY = NULL, HTML_BODY = NULL,"
                        + " CONTENT_REMOVED_AT = ? WHERE ID IN (" + marks(due.size()) + ")")) {
                    SqlTime.set(s, 1, now);
                    bindIds(s, 2, due);
                    removed += s.executeUpdate();
                }
            }
            return removed;
        } catch (SQLException e) {
            throw new StoreException("could not remove the content of " + ids.size() + " mails", e);
        }
    }

    /**
     * @return the cutoff of the content step's last complete run: every mail finished before it lost its content
     *         then; 1970-01-01 before the first (V20's row)
     * @throws StoreException when the database fails
     */
    public Instant reached() {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT REACHED FROM RETENTION_MARK WHERE NAME = ?")) {
            s.setString(1, CONTENT_MARK);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? SqlTime.get(r, 1) : Instant.EPOCH;
            }
        } catch (SQLException e) {
            throw new StoreException("could not read how far content retention has got", e);
        }
    }

    /**
     * Records that a run of the content step is complete. It never moves back: a run with a longer setting, whose
     * cutoff is earlier, leaves it.
     *
     * @param cutoff the run's cutoff
     * @throws StoreException when the database fails
     */
    public void reach(Instant cutoff) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("UPDATE RETENTION_MARK SET REACHED = ? WHERE NAME = ? AND REACHED < ?")) {
            SqlTime.set(s, 1, cutoff);
            s.setString(2, CONTENT_MARK);
            SqlTime.set(s, 3, cutoff);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("could not record how far content retention has got", e);
        }
    }
}
