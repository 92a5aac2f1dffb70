package dev.mailqueue.benchmark;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.concurrent.TimeoutException;

/**
 * The only class of the benchmark that knows the queue's tables: it reads them in PostgreSQL (how much
 * is left to send while dispatch runs, and afterwards the dispatch figures of one run's mails, told apart
 * by the first word of their subject) and, between rounds, deletes the single-request phase's mails,
 * which are due the next day and would otherwise stay in the next round's claims. All times come from
 * the rows: the mail's {@code created_at} (enqueue) and its log's {@code started_at} and {@code finished_at}
 * (the attempt that recorded it SENT ended at the SMTP server's 250 after DATA), UTC wall clock of the
 * application server. It reads the lean store (schema version 13 on): MAIL_QUEUE, MAIL_ATTEMPT, MAIL_STATE.
 * <p>
 * When the schema changes, change this class alone: what the database as a whole did in a phase (WAL,
 * tuple writes, statements) is measured by {@link PgCounters} from PostgreSQL's statistics, which knows
 * only the schema's name.
 */
public final class QueueDatabase implements AutoCloseable {

    /** Rows still to go: free (the partial claim index) and held by a claimer (the partial claimer index). */
    private static final String OUTSTANDING = """
            SELECT (SELECT count(*) FROM mail_queue WHERE claimer IS NULL),
                   (SELECT count(*) FROM mail_queue WHERE claimer IS NOT NULL)""";

    /**
     * A run's mails, each with the end of the attempt whose log row recorded it SENT (the SMTP server's 250
     * after DATA); the first claim is read as the first attempt's start, a few milliseconds after it.
     */
    private static final String FIGURES = """
            WITH m AS (SELECT id, created_at FROM mail_message WHERE subject LIKE ?),
                 a AS (SELECT a.mail_id, a.started_at, a.finished_at, a.mail_status
                       FROM mail_attempt a JOIN m ON m.id = a.mail_id),
                 s AS (SELECT m.created_at, a.finished_at AS sent_at
                       FROM m LEFT JOIN a ON a.mail_id = m.id AND a.mail_status = 'SENT')
            SELECT count(sent_at), count(*) - count(sent_at),
                   (SELECT min(started_at) FROM a), min(created_at), max(created_at), max(sent_at),
                   percentile_disc(0.1) WITHIN GROUP (ORDER BY sent_at),
                   percentile_disc(0.9) WITHIN GROUP (ORDER BY sent_at),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM sent_at - created_at)),
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM sent_at - created_at)),
                   max(EXTRACT(EPOCH FROM sent_at - created_at))
            FROM s""";

    /** The log's rows of delivery attempts (it also holds status changes and reports, which are no attempts). */
    private static final String ATTEMPTS = """
            SELECT count(*), count(*) FILTER (WHERE a.outcome = 'SENT'), count(DISTINCT a.lease_owner)
            FROM mail_attempt a JOIN mail_message m ON m.id = a.mail_id
            WHERE m.subject LIKE ? AND a.outcome IN ('SENT', 'FAILED', 'IN_DOUBT')""";

    /**
     * How the claimers spent their time, from the attempt log: per claimer (job execution, its lease
     * owner), the span from its first attempt's start to its last attempt's end, and within it the
     * attempts' own time (compose, MAIL, RCPT, DATA, the wait for the previous outcome's commit, the
     * reply); the rest is between attempts: the next claim, handing the outcome to the journal, the batch
     * container.
     */
    private static final String CLAIMER_TIME = """
            SELECT count(*), sum(mails), EXTRACT(EPOCH FROM sum(span)), EXTRACT(EPOCH FROM sum(smtp))
            FROM (SELECT a.lease_owner, count(*) AS mails, max(a.finished_at) - min(a.started_at) AS span,
                         sum(a.finished_at - a.started_at) AS smtp
                  FROM mail_attempt a JOIN mail_message m ON m.id = a.mail_id
                  WHERE m.subject LIKE ? AND a.outcome IN ('SENT', 'FAILED', 'IN_DOUBT')
                  GROUP BY a.lease_owner) per_claimer""";

    /** One mail's state, by id. */
    private static final String STATUS = "SELECT status FROM mail_state WHERE mail_id = ?";

    /** Mails of a tag, any state. */
    private static final String COUNT = "SELECT count(*) FROM mail_message WHERE subject LIKE ?";

    /**
     * A tag's mails that wait unclaimed, with their queue rows, recipients and headers (ON DELETE CASCADE) and their
     * log (no foreign key since V14).
     */
    private static final String DELETE_QUEUED = """
            WITH gone AS (DELETE FROM mail_message WHERE subject LIKE ?
                AND id IN (SELECT mail_id FROM mail_queue WHERE claimer IS NULL) RETURNING id),
            log AS (DELETE FROM mail_attempt WHERE mail_id IN (SELECT id FROM gone))
            SELECT count(*) FROM gone""";

    private final Connection connection;

    /**
     * @param jdbcUrl  e.g. {@code jdbc:postgresql://127.0.0.1:5432/test?currentSchema=mailqueue}
     * @param user     database user
     * @param password its password
     * @throws SQLException when the database cannot be reached
     */
    public QueueDatabase(String jdbcUrl, String user, String password) throws SQLException {
        this.connection = PgCounters.connect(jdbcUrl, user, password); // its polls are not the application's statements
    }

    /**
     * Dispatch figures of one run.
     *
     * @param sent                 mails SENT
     * @param notSent              mails in any other state (failed, retrying, still queued)
     * @param attempts             rows in the attempt log (more than {@code sent} means some were sent twice
     *                             or failed first)
     * @param sentAttempts         attempts that ended with the server's 250
     * @param claimerExecutions    distinct lease owners in the attempt log, i.e. dispatch job executions
     * @param firstClaimed         the first attempt's start: just after the first claimer took one
     * @param firstCreated         earliest {@code created_at}
     * @param lastCreated          latest {@code created_at}
     * @param lastSent             latest {@code sent_at}
     * @param sentP10              10th percentile of {@code sent_at}
     * @param sentP90              90th percentile of {@code sent_at}
     * @param latencyMillisP50     median of {@code sent_at - created_at}
     * @param latencyMillisP99     99th percentile of {@code sent_at - created_at}
     * @param latencyMillisMax     largest {@code sent_at - created_at}
     */
    public record DispatchFigures(long sent, long notSent, long attempts, long sentAttempts, long claimerExecutions,
                                  LocalDateTime firstClaimed, LocalDateTime firstCreated, LocalDateTime lastCreated,
                                  LocalDateTime lastSent, LocalDateTime sentP10, LocalDateTime sentP90,
                                  double latencyMillisP50, double latencyMillisP99, double latencyMillisMax) {

        /** @return SENT mails per second from the first claim to the last mail sent */
        public double mailsPerSecond() {
            return sent / seconds(firstClaimed, lastSent);
        }

        /** @return mails per second between the 10th and the 90th percentile of sent_at (start and tail cut off) */
        public double steadyMailsPerSecond() {
            return 0.8 * sent / seconds(sentP10, sentP90);
        }

        /** @return seconds from the first claim to the last mail sent */
        public double dispatchSeconds() {
            return seconds(firstClaimed, lastSent);
        }

        private static double seconds(LocalDateTime from, LocalDateTime to) {
            return Duration.between(from, to).toNanos() / 1e9;
        }
    }

    /**
     * How the claimers spent their time, from the attempt log.
     *
     * @param claimers     claimers (job executions) that made attempts
     * @param mails        attempts counted
     * @param spanSeconds  sum over claimers of first attempt start to last attempt end
     * @param smtpSeconds  sum of the attempts' own time
     */
    public record ClaimerTime(long claimers, long mails, double spanSeconds, double smtpSeconds) {

        /** @return share of the claimers' time spent in attempts */
        public double attemptShare() {
            return smtpSeconds / spanSeconds;
        }

        /** @return mean milliseconds of one attempt */
        public double attemptMillisPerMail() {
            return 1000 * smtpSeconds / mails;
        }

        /** @return mean milliseconds a claimer spent between two attempts */
        public double betweenMillisPerMail() {
            return 1000 * (spanSeconds - smtpSeconds) / Math.max(1, mails - claimers);
        }
    }

    /**
     * @param tag the first word of the run's subjects
     * @return how the claimers spent their time
     * @throws SQLException when the query fails
     */
    public ClaimerTime claimerTime(String tag) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(CLAIMER_TIME)) {
            query.setString(1, tag + " %");
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return new ClaimerTime(row.getLong(1), row.getLong(2), row.getDouble(3), row.getDouble(4));
            }
        }
    }

    /**
     * @param id a mail's id
     * @return its status now, or null when there is no such mail
     * @throws SQLException when the query fails
     */
    public String status(long id) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(STATUS)) {
            query.setLong(1, id);
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    /**
     * Waits until no mail is QUEUED or leased any more. Meant for a run of the benchmark's own mails on
     * a queue that was otherwise empty or done: it looks at all rows, not only the run's.
     *
     * @param expected     mails of the run, for the progress line
     * @param stallMillis  give up when the number left has not fallen for this long
     * @param progress     where to print a progress line about every 2 s
     * @throws TimeoutException     when dispatch stalls
     * @throws SQLException         when the query fails
     * @throws InterruptedException when interrupted while waiting
     */
    public void awaitDispatched(int expected, long stallMillis, PrintStream progress)
            throws SQLException, InterruptedException, TimeoutException {
        long lastChange = System.nanoTime();
        long lastPrint = System.nanoTime();
        long left = Long.MAX_VALUE;
        while (true) {
            long queued;
            long leased;
            try (PreparedStatement query = connection.prepareStatement(OUTSTANDING);
                 ResultSet row = query.executeQuery()) {
                row.next();
                queued = row.getLong(1);
                leased = row.getLong(2);
            }
            long now = System.nanoTime();
            if (queued + leased == 0) {
                return;
            }
            if (queued + leased < left) {
                left = queued + leased;
                lastChange = now;
            } else if (now - lastChange > stallMillis * 1_000_000L) {
                throw new TimeoutException("dispatch stalled: " + queued + " QUEUED and " + leased
                        + " leased for " + stallMillis + " ms");
            }
            if (now - lastPrint > 2_000_000_000L) {
                progress.printf("  dispatch: %d of %d left (%d queued, %d leased)%n", left, expected, queued, leased);
                lastPrint = now;
            }
            Thread.sleep(500); // each poll reads the queue's indexes: rarely, not to load the run it measures
        }
    }

    /**
     * @param tag the first word of the run's subjects
     * @return the run's dispatch figures
     * @throws SQLException when the query fails
     */
    public DispatchFigures figures(String tag) throws SQLException {
        String like = tag + " %";
        long attempts;
        long sentAttempts;
        long executions;
        try (PreparedStatement query = connection.prepareStatement(ATTEMPTS)) {
            query.setString(1, like);
            try (ResultSet row = query.executeQuery()) {
                row.next();
                attempts = row.getLong(1);
                sentAttempts = row.getLong(2);
                executions = row.getLong(3);
            }
        }
        try (PreparedStatement query = connection.prepareStatement(FIGURES)) {
            query.setString(1, like);
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return new DispatchFigures(row.getLong(1), row.getLong(2), attempts, sentAttempts, executions,
                        row.getObject(3, LocalDateTime.class), row.getObject(4, LocalDateTime.class),
                        row.getObject(5, LocalDateTime.class), row.getObject(6, LocalDateTime.class),
                        row.getObject(7, LocalDateTime.class), row.getObject(8, LocalDateTime.class),
                        row.getDouble(9) * 1000, row.getDouble(10) * 1000, row.getDouble(11) * 1000);
            }
        }
    }

    /**
     * @param tag the first word of the subjects
     * @return how many mails carry it, in any state
     * @throws SQLException when the query fails
     */
    public long count(String tag) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(COUNT)) {
            query.setString(1, tag + " %");
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /**
     * Deletes a tag's mails that are still queued (the single requests' mails, due the next day), so that
     * the next round's claims do not step over them.
     *
     * @param tag the first word of the subjects
     * @return how many were deleted
     * @throws SQLException when the statement fails
     */
    public int deleteQueued(String tag) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(DELETE_QUEUED)) {
            delete.setString(1, tag + " %");
            try (ResultSet r = delete.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
