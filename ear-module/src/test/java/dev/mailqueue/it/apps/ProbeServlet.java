package dev.mailqueue.it.apps;

import jakarta.servlet.ServletException;
import jakarta.batch.operations.JobOperator;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.batch.runtime.JobExecution;
import jakarta.batch.runtime.JobInstance;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Set;

/**
 * Reads queue rows with plain JDBC on the server's data source, and leaves a row as a worker that
 * died mid-send would. Answers text/plain.
 * <ul>
 *   <li>{@code GET ?op=count[&table=][&mailId=]}: rows in MAIL_MESSAGE (or MAIL_ATTEMPT, MAIL_ATTACHMENT,
 *       MAIL_HEADER), optionally of one mail</li>
 *   <li>{@code GET ?op=executions&job=}: one line per execution of that batch job on this server,
 *       newest first: executionId batchStatus exitStatus</li>
 *   <li>{@code POST ?op=age&rows=id:STATUS:days,...}: in one transaction, puts each row in STATUS and
 *       moves all its times (created, not-before, and last attempt and sent-at where set) that many
 *       days back; a SENDING row gets a live lease (an hour) and a QUEUED one no attempts left, so the
 *       dispatcher leaves both alone</li>
 *   <li>{@code GET ?op=sending&from=&to=}: rows in SENDING with ids in [from, to]</li>
 *   <li>{@code GET ?op=attempts&from=&to=}: one line per attempt: mailId,leaseOwner,startedMs,finishedMs,outcome</li>
 *   <li>{@code GET ?op=digest[&exclude=id,id,...]}: one line per queue table, {@code TABLE rows sha256},
 *       the hash over every row's columns in key order, so a test can tell that a request changed nothing
 *       at all; the mails excluded (and their attempts, parts and recipients) are left out</li>
 *   <li>{@code GET ?op=busy}: the ids of the rows the dispatcher may touch within 15 minutes (QUEUED with
 *       attempts left and due by then, or SENDING with a lease that ends by then), comma separated</li>
 *   <li>{@code GET ?op=rate&account=}: the account's shared rate state: slowedLimit,dayCount (empty
 *       slowedLimit: at its configured limit; empty answer: no state yet)</li>
 *   <li>{@code POST ?op=reset-rate&account=}: deletes the account's shared rate state; answers the rows deleted</li>
 *   <li>{@code POST ?op=lease&id=&owner=&expiresInMs=}: a QUEUED row becomes SENDING, leased to owner,
 *       due now; with {@code sendStarted=true} as if its claimer had begun the SMTP transaction;
 *       answers the rows changed</li>
 *   <li>{@code POST ?op=fail&id=&code=}: a QUEUED row ends FAILED after one attempt the SMTP server
 *       answered with reply {@code code} (e.g. 550, a bounce); answers the rows changed</li>
 * </ul>
 */
@WebServlet("/db")
public class ProbeServlet extends HttpServlet {

    /** The queue's data source, by the name both servers resolve in a plain lookup (ServerResources). */
    private DataSource dataSource;

    @Override
    public void init() throws ServletException {
        try {
            dataSource = (DataSource) new InitialContext().lookup("jdbc/mailqueue");
        } catch (NamingException e) {
            throw new ServletException("no data source jdbc/mailqueue", e);
        }
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        PrintWriter out = response.getWriter();
        try (Connection c = dataSource.getConnection()) {
            switch (request.getParameter("op")) {
                case "count" -> out.print(count(c, request.getParameter("table"), request.getParameter("mailId")));
                case "executions" -> executions(request.getParameter("job"), out);
                case "sending" -> out.print(single(c, "SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'SENDING'"
                        + " AND ID BETWEEN " + id(request, "from") + " AND " + id(request, "to")));
                case "attempts" -> attempts(c, id(request, "from"), id(request, "to"), out);
                case "rate" -> rate(c, request.getParameter("account"), out);
                case "digest" -> digest(c, request.getParameter("exclude"), out);
                case "busy" -> out.print(busy(c));
                default -> response.setStatus(400);
            }
        } catch (SQLException e) {
            response.setStatus(500);
            e.printStackTrace(out);
        }
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        if ("age".equals(request.getParameter("op"))) {
            try (Connection c = dataSource.getConnection()) {
                response.getWriter().print(age(c, request.getParameter("rows")));
            } catch (SQLException e) {
                response.setStatus(500);
                e.printStackTrace(response.getWriter());
            }
            return;
        }
        if ("reset-rate".equals(request.getParameter("op"))) {
            resetRate(request.getParameter("account"), response);
            return;
        }
        if ("fail".equals(request.getParameter("op"))) {
            fail(request, response);
            return;
        }
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE MAIL_MESSAGE SET STATUS = 'SENDING', LEASE_OWNER = ?,"
                     + " LEASE_EXPIRES_AT = ?, NOT_BEFORE = ?, SEND_STARTED_AT = ? WHERE ID = ? AND STATUS = 'QUEUED'")) {
            s.setString(1, request.getParameter("owner"));
            s.setTimestamp(2, Timestamp.valueOf(now.plusNanos(Long.parseLong(request.getParameter("expiresInMs")) * 1_000_000)));
            s.setTimestamp(3, Timestamp.valueOf(now));
            s.setTimestamp(4, "true".equals(request.getParameter("sendStarted")) ? Timestamp.valueOf(now) : null);
            s.setLong(5, id(request, "id"));
            response.getWriter().print(s.executeUpdate());
        } catch (SQLException e) {
            response.setStatus(500);
            e.printStackTrace(response.getWriter());
        }
    }

    private static final Set<String> TABLES = Set.of("MAIL_MESSAGE", "MAIL_ATTEMPT", "MAIL_ATTACHMENT", "MAIL_HEADER",
            "BOUNCE_REPORT", "SUPPRESSION");

    private static long count(Connection c, String table, String mailId) throws SQLException {
        String name = table == null ? "MAIL_MESSAGE" : table;
        if (!TABLES.contains(name)) {
            throw new IllegalArgumentException("no such table: " + table);
        }
        if (mailId == null) {
            return single(c, "SELECT COUNT(*) FROM " + name);
        }
        String column = name.equals("MAIL_MESSAGE") ? "ID" : "MAIL_ID";
        return single(c, "SELECT COUNT(*) FROM " + name + " WHERE " + column + " = " + Long.parseLong(mailId));
    }

    private static void executions(String job, PrintWriter out) {
        JobOperator jobs = BatchRuntime.getJobOperator();
        int instances = jobs.getJobInstanceCount(job);
        for (JobInstance instance : jobs.getJobInstances(job, 0, instances)) {
            for (JobExecution execution : jobs.getJobExecutions(instance)) {
                out.println(execution.getExecutionId() + " " + execution.getBatchStatus() + " " + execution.getExitStatus());
            }
        }
    }

    private static int age(Connection c, String rows) throws SQLException {
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
        int changed = 0;
        c.setAutoCommit(false);
        try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_MESSAGE SET STATUS = ?, CREATED_AT = ?, NOT_BEFORE = ?,"
                + " LAST_ATTEMPT_AT = CASE WHEN LAST_ATTEMPT_AT IS NULL THEN LAST_ATTEMPT_AT ELSE ? END,"
                + " SENT_AT = CASE WHEN SENT_AT IS NULL THEN SENT_AT ELSE ? END,"
                + " LEASE_OWNER = ?, LEASE_EXPIRES_AT = ?, ATTEMPTS_REMAINING = ATTEMPTS_REMAINING * ? WHERE ID = ?")) {
            for (String row : rows.split(",")) {
                String[] spec = row.split(":");
                String status = spec[1];
                Timestamp then = Timestamp.valueOf(now.minusDays(Long.parseLong(spec[2])));
                boolean sending = status.equals("SENDING");
                s.setString(1, status);
                s.setTimestamp(2, then);
                s.setTimestamp(3, then);
                s.setTimestamp(4, then);
                s.setTimestamp(5, then);
                if (sending) {
                    s.setString(6, "probe/alive#1");
                    s.setTimestamp(7, Timestamp.valueOf(now.plusHours(1)));
                } else {
                    s.setNull(6, Types.VARCHAR);
                    s.setNull(7, Types.TIMESTAMP);
                }
                s.setInt(8, status.equals("QUEUED") ? 0 : 1);
                s.setLong(9, Long.parseLong(spec[0]));
                changed += s.executeUpdate();
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
        return changed;
    }

    /** Forgets an account's shared rate state (a Derby database outlives the test run). */
    private void resetRate(String account, HttpServletResponse response) throws IOException {
        try (Connection c = dataSource.getConnection()) {
            int deleted = 0;
            for (String table : new String[]{"SMTP_ACCOUNT_SLOT", "SMTP_ACCOUNT_RATE"}) {
                try (PreparedStatement s = c.prepareStatement("DELETE FROM " + table + " WHERE SMTP_ACCOUNT = ?")) {
                    s.setString(1, account);
                    deleted += s.executeUpdate();
                }
            }
            response.getWriter().print(deleted);
        } catch (SQLException e) {
            response.setStatus(500);
            e.printStackTrace(response.getWriter());
        }
    }

    private void fail(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long id = id(request, "id");
        int code = Integer.parseInt(request.getParameter("code"));
        Timestamp now = Timestamp.valueOf(LocalDateTime.now(ZoneOffset.UTC));
        String error = code + " refused by the probe";
        try (Connection c = dataSource.getConnection();
             PreparedStatement mail = c.prepareStatement("UPDATE MAIL_MESSAGE SET STATUS = 'FAILED',"
                     + " ATTEMPTS_REMAINING = 0, LAST_ATTEMPT_AT = ?, LAST_ERROR = ? WHERE ID = ? AND STATUS = 'QUEUED'");
             PreparedStatement attempt = c.prepareStatement("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT,"
                     + " FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME, SMTP_REPLY_CODE, SMTP_REPLY_TEXT, ERROR)"
                     + " VALUES (?, ?, ?, ?, 'probe', 'probe', 'FAILED', ?, ?, ?)")) {
            mail.setTimestamp(1, now);
            mail.setString(2, error);
            mail.setLong(3, id);
            int changed = mail.executeUpdate();
            attempt.setLong(1, -id); // the sequence hands out positive ids only
            attempt.setLong(2, id);
            attempt.setTimestamp(3, now);
            attempt.setTimestamp(4, now);
            attempt.setInt(5, code);
            attempt.setString(6, error);
            attempt.setString(7, error);
            attempt.executeUpdate();
            response.getWriter().print(changed);
        } catch (SQLException e) {
            response.setStatus(500);
            e.printStackTrace(response.getWriter());
        }
    }

    private static long id(HttpServletRequest request, String name) {
        return Long.parseLong(request.getParameter(name));
    }

    private static long single(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }

    private static void attempts(Connection c, long from, long to, PrintWriter out) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, LEASE_OWNER, STARTED_AT, FINISHED_AT, OUTCOME"
                + " FROM MAIL_ATTEMPT WHERE MAIL_ID BETWEEN ? AND ? ORDER BY ID")) {
            s.setLong(1, from);
            s.setLong(2, to);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.println(r.getLong(1) + "," + r.getString(2) + "," + millis(r.getTimestamp(3))
                            + "," + millis(r.getTimestamp(4)) + "," + r.getString(5));
                }
            }
        }
    }

    /** The tables a request could change, with the columns that identify a row's order. */
    private static final String[][] DIGESTED = {{"MAIL_MESSAGE", "ID"}, {"MAIL_ATTEMPT", "ID"},
            {"MAIL_ATTACHMENT", "MAIL_ID, SEQ_NO"}, {"MAIL_HEADER", "MAIL_ID, SEQ_NO"}, {"MAIL_RECIPIENT", "MAIL_ID, ADDRESS"}};

    private static void digest(Connection c, String exclude, PrintWriter out) throws SQLException {
        String excluded = exclude == null || exclude.isBlank() ? "" : java.util.Arrays.stream(exclude.split(","))
                .map(String::strip).map(Long::parseLong).map(String::valueOf).collect(java.util.stream.Collectors.joining(","));
        for (String[] table : DIGESTED) {
            String idColumn = table[0].equals("MAIL_MESSAGE") ? "ID" : "MAIL_ID";
            String where = excluded.isEmpty() ? "" : " WHERE " + idColumn + " NOT IN (" + excluded + ")";
            try (PreparedStatement s = c.prepareStatement("SELECT * FROM " + table[0] + where + " ORDER BY " + table[1]);
                 ResultSet r = s.executeQuery()) {
                java.security.MessageDigest sha;
                try {
                    sha = java.security.MessageDigest.getInstance("SHA-256");
                } catch (java.security.NoSuchAlgorithmException e) {
                    throw new IllegalStateException(e);
                }
                int columns = r.getMetaData().getColumnCount();
                long rows = 0;
                while (r.next()) {
                    rows++;
                    for (int i = 1; i <= columns; i++) {
                        int type = r.getMetaData().getColumnType(i);
                        boolean binary = type == Types.BLOB || type == Types.BINARY || type == Types.VARBINARY
                                || type == Types.LONGVARBINARY;
                        byte[] bytes = binary ? r.getBytes(i) : null;
                        String text = binary ? (bytes == null ? "null" : java.util.HexFormat.of().formatHex(bytes))
                                : String.valueOf(r.getString(i));
                        sha.update((text + "\u0001").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                }
                out.println(table[0] + " " + rows + " " + java.util.HexFormat.of().formatHex(sha.digest()));
            }
        }
    }

    private static String busy(Connection c) throws SQLException {
        Timestamp soon = Timestamp.valueOf(LocalDateTime.now(ZoneOffset.UTC).plusMinutes(15));
        try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_MESSAGE WHERE (STATUS = 'QUEUED'"
                + " AND ATTEMPTS_REMAINING > 0 AND NOT_BEFORE <= ?) OR (STATUS = 'SENDING' AND LEASE_EXPIRES_AT <= ?)"
                + " ORDER BY ID")) {
            s.setTimestamp(1, soon);
            s.setTimestamp(2, soon);
            StringBuilder ids = new StringBuilder();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.append(ids.isEmpty() ? "" : ",").append(r.getLong(1));
                }
            }
            return ids.toString();
        }
    }

    private static void rate(Connection c, String account, PrintWriter out) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT SLOWED_LIMIT, DAY_COUNT FROM SMTP_ACCOUNT_RATE WHERE SMTP_ACCOUNT = ?")) {
            s.setString(1, account);
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    int slowed = r.getInt(1);
                    out.print((r.wasNull() ? "" : Integer.toString(slowed)) + "," + r.getInt(2));
                }
            }
        }
    }

    private static long millis(Timestamp utcWallClock) {
        return utcWallClock.toLocalDateTime().toInstant(ZoneOffset.UTC).toEpochMilli();
    }
}
