package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static dev.mailqueue.queue.control.Sql.bindIds;
import static dev.mailqueue.queue.control.Sql.marks;

/**
 * The number of mails in each status out of the queue (MAIL_STATUS_COUNT), kept by the statements that change a
 * status, in their transaction, so that reading them costs the same at ten mails as at a hundred million: the
 * statistics answer, the console's overview and the queue-depth gauges read these, not the log (issue 51).
 * <p>
 * The table has one row per status and bucket, {@value #BUCKETS} buckets a status; a transaction adds its changes
 * to the rows of one bucket picked at random, so that servers finishing mail at once seldom wait for one another's
 * row lock, and a read sums the buckets. A status's exact count is that sum. Each transaction that changes counts
 * updates them as its last writes, in status order, one statement per status it changed (one per commit group of
 * the dispatch, not one per mail): it holds those row locks only until its commit, and never waits for another
 * lock while holding one.
 * <p>
 * What is counted: {@link #COUNTED}, every status but the live ones, whose mails are counted from MAIL_QUEUE. A log
 * row that sets a counted status adds one ({@link AttemptLog#insert} does that for every row it writes); a change
 * that takes a mail out of a counted status (a requeue, the cancel of a held mail, a delete) subtracts one, and only
 * its store knows the status it left, so it says so ({@link Change#left}).
 */
public final class StatusCounts {

    /** Rows per status: the changes of concurrent transactions spread over this many, 0 to 15. */
    public static final int BUCKETS = 16;

    /** The statuses counted here: every one that has no MAIL_QUEUE row (a live mail is counted from MAIL_QUEUE). */
    public static final Set<MailStatus> COUNTED = Collections.unmodifiableSet(EnumSet.complementOf(
            EnumSet.copyOf(MailLifecycle.LIVE)));

    static final String ADD = "UPDATE MAIL_STATUS_COUNT SET MAILS = MAILS + ? WHERE STATUS = ? AND BUCKET = ?";

    /** The counts: the buckets of each status summed. */
    public static final String READ = "SELECT STATUS, SUM(MAILS) FROM MAIL_STATUS_COUNT GROUP BY STATUS";

    /**
     * The latest status each of a chunk of just deleted mails had, counted by status: their log's rows that set a
     * status, the latest of each mail, for the ids of the chunk (bound as {@code ?}s) that no longer have a
     * MAIL_MESSAGE row. Run in the delete's transaction before the log goes.
     */
    private static final String DELETED = "SELECT a.MAIL_STATUS, COUNT(*) FROM MAIL_ATTEMPT a"
            + " WHERE a.MAIL_ID IN (%s) AND a.MAIL_STATUS IS NOT NULL"
            + " AND NOT EXISTS (SELECT 1 FROM MAIL_ATTEMPT b WHERE b.MAIL_ID = a.MAIL_ID AND b.MAIL_STATUS IS NOT NULL"
            + " AND b.ID > a.ID)"
            + " AND NOT EXISTS (SELECT 1 FROM MAIL_MESSAGE m WHERE m.ID = a.MAIL_ID)"
            + " GROUP BY a.MAIL_STATUS";

    private StatusCounts() {
    }

    /**
     * @param c a connection
     * @return mails per counted status, every one of {@link #COUNTED} present (0 when none)
     * @throws SQLException when the database fails, e.g. a schema older than V17 has no MAIL_STATUS_COUNT
     */
    public static Map<MailStatus, Long> read(Connection c) throws SQLException {
        Map<MailStatus, Long> counts = new EnumMap<>(MailStatus.class);
        COUNTED.forEach(status -> counts.put(status, 0L));
        try (PreparedStatement s = c.prepareStatement(READ); ResultSet r = s.executeQuery()) {
            while (r.next()) {
                MailStatus status = MailStatus.valueOf(r.getString(1));
                if (COUNTED.contains(status)) {
                    counts.put(status, r.getLong(2));
                }
            }
        }
        return counts;
    }

    /**
     * The changes of one transaction to the counts, gathered while it writes and applied once, as its last writes
     * ({@link #apply}). Not thread-safe: one transaction's.
     */
    public static final class Change {

        private final long[] delta = new long[MailStatus.values().length];

        /**
         * A mail took {@code status} on. Ignored for a live status.
         *
         * @param status the mail's new status
         * @return this
         */
        public Change arrived(MailStatus status) {
            if (COUNTED.contains(status)) {
                delta[status.ordinal()]++;
            }
            return this;
        }

        /**
         * A mail left {@code status} (requeued, cancelled from HELD, deleted). Ignored for a live status.
         *
         * @param status the status it had
         * @return this
         */
        public Change left(MailStatus status) {
            if (COUNTED.contains(status)) {
                delta[status.ordinal()]--;
            }
            return this;
        }

        /**
         * Counts out the mails of a chunk the caller has just deleted from MAIL_MESSAGE, by the latest status
         * their log still records; call it after that delete and before their log rows go.
         *
         * @param c     the delete's connection, in its transaction
         * @param chunk the ids the delete named, at most {@link Sql#IN_LIST}; those still present are left alone
         * @return this
         * @throws SQLException when the database fails
         */
        public Change deleted(Connection c, List<Long> chunk) throws SQLException {
            if (chunk.isEmpty()) {
                return this;
            }
            try (PreparedStatement s = c.prepareStatement(DELETED.formatted(marks(chunk.size())))) {
                bindIds(s, 1, chunk);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        MailStatus status = MailStatus.valueOf(r.getString(1));
                        if (COUNTED.contains(status)) {
                            delta[status.ordinal()] -= r.getLong(2);
                        }
                    }
                }
            }
            return this;
        }

        /**
         * Adds the gathered changes to one bucket picked at random, one statement per status that changed, in status
         * order, and forgets them (a second call adds nothing). Call it as the transaction's last write.
         *
         * @param c the transaction's connection
         * @param d the database
         * @throws SQLException when the database fails, or a row the V17 script seeds is missing (the count would
         *                      silently go astray otherwise)
         */
        public void apply(Connection c, DatabaseKind d) throws SQLException {
            int bucket = ThreadLocalRandom.current().nextInt(BUCKETS);
            MailStatus[] statuses = MailStatus.values();
            try (Batch batch = new Batch(c, d, ADD)) {
                int rows = 0;
                MailStatus[] order = new MailStatus[statuses.length];
                for (MailStatus status : statuses) {
                    if (delta[status.ordinal()] != 0) {
                        PreparedStatement s = batch.statement();
                        s.setLong(1, delta[status.ordinal()]);
                        s.setString(2, status.name());
                        s.setInt(3, bucket);
                        batch.add();
                        order[rows++] = status;
                    }
                }
                int[] counts = batch.execute();
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] == 0) {
                        throw new SQLException("MAIL_STATUS_COUNT has no row for status " + order[i] + " and bucket "
                                + bucket + ": the schema's V17 script seeds one per counted status and bucket");
                    }
                }
            }
            Arrays.fill(delta, 0);
        }
    }
}
