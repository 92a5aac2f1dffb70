package dev.mailqueue.benchmark;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.concurrent.TimeoutException;

/**
 * Reads the queue's tables in PostgreSQL (read only): how much is left to send while dispatch runs,
 * and afterwards the dispatch figures of one run's mails, told apart by the first word of their
 * subject. All times come from the rows: {@code created_at} (enqueue), {@code not_before} (due) and
 * {@code sent_at} (the SMTP server's 250 after DATA), UTC wall clock of the application server.
 */
public final class QueueDatabase implements AutoCloseable {

    /** Rows still to go: QUEUED (the partial claim index) and leased (the partial lease index). */
    private static final String OUTSTANDING = """
            SELECT (SELECT count(*) FROM mail_message WHERE status = 'QUEUED'),
                   (SELECT count(*) FROM mail_message WHERE lease_expires_at IS NOT NULL)""";

    private static final String FIGURES = """
            SELECT count(*) FILTER (WHERE status = 'SENT'),
                   count(*) FILTER (WHERE status <> 'SENT'),
                   min(claimed_at), min(created_at), max(created_at), max(sent_at),
                   percentile_disc(0.1) WITHIN GROUP (ORDER BY sent_at),
                   percentile_disc(0.9) WITHIN GROUP (ORDER BY sent_at),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM sent_at - created_at)),
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM sent_at - created_at)),
                   max(EXTRACT(EPOCH FROM sent_at - created_at))
            FROM mail_message WHERE subject LIKE ?""";

    private static final String ATTEMPTS = """
            SELECT count(*), count(*) FILTER (WHERE a.outcome = 'SENT'), count(DISTINCT a.lease_owner)
            FROM mail_attempt a JOIN mail_message m ON m.id = a.mail_id WHERE m.subject LIKE ?""";

    /**
     * How the claimers spent their time, from the attempt log: per claimer (job execution, its lease
     * owner), the span from its first attempt's start to its last attempt's end, and within it the
     * attempts' own time (compose, MAIL, RCPT, DATA, the wait for the send-started mark, the reply);
     * the rest is between attempts: the next claim, handing the outcome to the journal, the batch
     * container.
     */
    private static final String CLAIMER_TIME = """
            SELECT count(*), sum(mails), EXTRACT(EPOCH FROM sum(span)), EXTRACT(EPOCH FROM sum(smtp))
            FROM (SELECT a.lease_owner, count(*) AS mails, max(a.finished_at) - min(a.started_at) AS span,
                         sum(a.finished_at - a.started_at) AS smtp
                  FROM mail_attempt a JOIN mail_message m ON m.id = a.mail_id WHERE m.subject LIKE ?
                  GROUP BY a.lease_owner) per_claimer""";

    /** One mail's state, by id. */
    private static final String STATUS = "SELECT status FROM mail_message WHERE id = ?";

    private final Connection connection;

    /**
     * @param jdbcUrl  e.g. {@code jdbc:postgresql://127.0.0.1:5432/test?currentSchema=mailqueue}
     * @param user     database user
     * @param password its password
     * @throws SQLException when the database cannot be reached
     */
    public QueueDatabase(String jdbcUrl, String user, String password) throws SQLException {
        this.connection = DriverManager.getConnection(jdbcUrl, user, password);
        this.connection.setAutoCommit(true);
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
     * @param firstClaimed         earliest {@code claimed_at}: when the first claimer took one
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

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
