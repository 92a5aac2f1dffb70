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
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Set;

/**
 * Reads queue rows with plain JDBC on the server's data source, and leaves a mail as a claimer that
 * died mid-send would. Answers text/plain. The lean store (V13): a mail's content is MAIL_MESSAGE, an unfinished
 * mail has a MAIL_QUEUE row (SENDING while a MAIL_CLAIMER holds it), and every status of a finished one is a row
 * of its log, MAIL_ATTEMPT (the view MAIL_STATE reads both).
 * <ul>
 *   <li>{@code GET ?op=count[&table=][&mailId=]}: rows in MAIL_MESSAGE (or MAIL_ATTEMPT, MAIL_QUEUE,
 *       MAIL_RECIPIENT, MAIL_ATTACHMENT, MAIL_HEADER, ...), optionally of one mail</li>
 *   <li>{@code GET ?op=executions&job=}: one line per execution of that batch job on this server,
 *       newest first: executionId batchStatus exitStatus</li>
 *   <li>{@code POST ?op=age&rows=id:STATUS:days,...}: in one transaction, puts each mail in STATUS and
 *       moves all its times (created, and those of its log rows) that many days back. QUEUED: a free queue row
 *       with no attempts left, due only in a year; SENDING: a queue row held by a live claimer
 *       ({@code probe/alive#1}, its lease an hour); so the dispatcher leaves both alone. Any other status: no
 *       queue row, and, where the mail's status was another, a log row (STATE, no attempt) that records it.
 *       It sets the retention job's content mark back to 1970, so that its next run reads these rows</li>
 *   <li>{@code GET ?op=sending&from=&to=}: mails being sent (held by a claimer) with ids in [from, to]</li>
 *   <li>{@code POST ?op=unfinished-ids} with the ids comma-separated as the body: how many of those mails are
 *       not finished (still in MAIL_QUEUE)</li>
 *   <li>{@code GET ?op=attempts&from=&to=}: one line per row of the attempt log (the outcomes an attempt log
 *       shows: attempts and reports, not status changes): mailId,leaseOwner,startedMs,finishedMs,outcome</li>
 *   <li>{@code GET ?op=digest[&exclude=id,id,...]}: one line per queue table, {@code TABLE rows sha256},
 *       the hash over every row's columns in key order, so a test can tell that a request changed nothing
 *       at all; the mails excluded (and their queue row, log, parts and recipients) are left out</li>
 *   <li>{@code GET ?op=holding&address=}: one line {@code TABLE.COLUMN} per column of any table or view of the
 *       queue's schema (the JDBC metadata's, so a table added later is read too) where some row holds the address
 *       whole, in any case: character columns as text, binary ones (raw mail, attachments) as ISO-8859-1 bytes</li>
 *   <li>{@code GET ?op=busy}: the ids of the mails the dispatcher may touch within 15 minutes (free in the
 *       queue and due by then, or held by a claimer whose lease ends by then), comma separated</li>
 *   <li>{@code GET ?op=rate&account=}: the account's shared rate state: slowedLimit,dayCount (empty
 *       slowedLimit: at its configured limit; empty answer: no state yet)</li>
 *   <li>{@code POST ?op=reset-rate&account=}: deletes the account's shared rate state; answers the rows deleted</li>
 *   <li>{@code POST ?op=lease&id=&owner=&expiresInMs=}: a free queued mail (QUEUED) becomes SENDING, due now,
 *       held by a new claimer of that owner whose lease ends in that many ms (or has ended, for 0 or less), as
 *       the only mail of its send order: when the lease is taken back, it is in doubt, as the first unrecorded
 *       mail of a dead claimer always is ({@code sendStarted=true}, which said so before the lean store, is
 *       accepted and changes nothing); answers the mails changed</li>
 *   <li>{@code POST ?op=fail&id=&code=}: a free queued mail (QUEUED) leaves the queue FAILED after one attempt
 *       the SMTP server answered with reply {@code code} (e.g. 550, a bounce), which publishes no event; answers
 *       the mails changed</li>
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
                case "sending" -> out.print(single(c, "SELECT COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER IS NOT NULL"
                        + " AND MAIL_ID BETWEEN " + id(request, "from") + " AND " + id(request, "to")));
                case "attempts" -> attempts(c, id(request, "from"), id(request, "to"), out);
                case "rate" -> rate(c, request.getParameter("account"), out);
                case "digest" -> digest(c, request.getParameter("exclude"), out);
                case "busy" -> out.print(busy(c));
                case "holding" -> holding(c, request.getParameter("address"), out);
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
        if ("unfinished-ids".equals(request.getParameter("op"))) {
            try (Connection c = dataSource.getConnection()) {
                response.getWriter().print(unfinishedIds(c, request.getReader().lines()
                        .collect(java.util.stream.Collectors.joining(","))));
            } catch (SQLException | RuntimeException e) {
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
        if ("lease".equals(request.getParameter("op"))) {
            try (Connection c = dataSource.getConnection()) {
                response.getWriter().print(lease(c, id(request, "id"), request.getParameter("owner"),
                        Long.parseLong(request.getParameter("expiresInMs"))));
            } catch (SQLException e) {
                response.setStatus(500);
                e.printStackTrace(response.getWriter());
            }
            return;
        }
        response.setStatus(400);
    }

    /**
     * @return 1 when the mail was free in the queue and is now held by a new claimer of {@code owner} whose lease
     *         ends in {@code expiresInMs}; else 0, and nothing changed
     */
    private static int lease(Connection c, long id, String owner, long expiresInMs) throws SQLException {
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
        c.setAutoCommit(false);
        try {
            long claimer = claimer(c, owner, now, now.plusNanos(expiresInMs * 1_000_000));
            int changed;
            try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_QUEUE SET CLAIMER = ?, CLAIM_NO = 1, DUE_AT = ?"
                    + " WHERE MAIL_ID = ? AND CLAIMER IS NULL")) {
                s.setLong(1, claimer);
                s.setTimestamp(2, Timestamp.valueOf(now));
                s.setLong(3, id);
                changed = s.executeUpdate();
            }
            if (changed == 1) {
                c.commit();
            } else {
                c.rollback();
            }
            return changed;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
    }

    /** @return the id of a new claimer (MAIL_CLAIMER) of {@code owner}, started now, its lease to {@code expiresAt} */
    private static long claimer(Connection c, String owner, LocalDateTime now, LocalDateTime expiresAt)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_CLAIMER (OWNER, STARTED_AT, EXPIRES_AT)"
                + " VALUES (?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            s.setString(1, owner);
            s.setTimestamp(2, Timestamp.valueOf(now));
            s.setTimestamp(3, Timestamp.valueOf(expiresAt));
            s.executeUpdate();
            try (ResultSet keys = s.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        }
    }

    private static final Set<String> TABLES = Set.of("MAIL_MESSAGE", "MAIL_ATTEMPT", "MAIL_QUEUE", "MAIL_RECIPIENT",
            "MAIL_ATTACHMENT", "MAIL_HEADER", "BOUNCE_REPORT", "SUPPRESSION");

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

    /** The claimer that holds the mails {@code age} leaves SENDING: alive for an hour, nobody's job. */
    private static final String ALIVE = "probe/alive#1";

    private static int age(Connection c, String rows) throws SQLException {
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
        int changed = 0;
        c.setAutoCommit(false);
        try {
            Long alive = null;
            for (String row : rows.split(",")) {
                String[] spec = row.split(":");
                long id = Long.parseLong(spec[0]);
                String status = spec[1];
                Timestamp then = Timestamp.valueOf(now.minusDays(Long.parseLong(spec[2])));
                String was = text(c, "SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id);
                int updated = update(c, "UPDATE MAIL_MESSAGE SET CREATED_AT = ? WHERE ID = ?", then, id);
                if (updated == 0) {
                    continue;
                }
                changed += updated;
                update(c, "UPDATE MAIL_ATTEMPT SET STARTED_AT = ?, FINISHED_AT = ? WHERE MAIL_ID = ?", then, then, id);
                update(c, "DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ?", id);
                if (!status.equals(was)) { // the counts per status (V17), as the stores keep them
                    count(c, was, -1);
                    count(c, status, 1);
                }
                switch (status) {
                    case "QUEUED" -> queueRow(c, id, then, Timestamp.valueOf(now.plusDays(365)), 0, null);
                    case "SENDING" -> {
                        if (alive == null) {
                            alive = claimer(c, ALIVE, now, now.plusHours(1));
                        }
                        queueRow(c, id, then, then, 1, alive);
                    }
                    default -> {
                        if (!status.equals(was)) {
                            log(c, id, then, "STATE", null, null, status);
                        }
                    }
                }
            }
            update(c, "DELETE FROM MAIL_CLAIMER WHERE OWNER = ? AND NOT EXISTS (SELECT 1 FROM MAIL_QUEUE q"
                    + " WHERE q.CLAIMER = MAIL_CLAIMER.ID)", ALIVE);
            // History written now with times of days ago: the content step reads from a day before its last cutoff,
            // so it would take these rows for ones it has read; it starts over, as on a database from before V20.
            update(c, "UPDATE RETENTION_MARK SET REACHED = ? WHERE NAME = 'content'",
                    Timestamp.valueOf(LocalDateTime.of(1970, 1, 1, 0, 0)));
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
        return changed;
    }

    /** Gives a mail a queue row, as an enqueue (or a claim, with {@code claimer}) writes it. */
    private static void queueRow(Connection c, long id, Timestamp createdAt, Timestamp dueAt, int attemptsLeft,
                                 Long claimer) throws SQLException {
        int priority;
        String account;
        String campaign;
        try (PreparedStatement s = c.prepareStatement("SELECT PRIORITY, SMTP_ACCOUNT, CAMPAIGN FROM MAIL_MESSAGE"
                + " WHERE ID = ?")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                priority = r.getInt(1);
                account = r.getString(2);
                campaign = r.getString(3);
            }
        }
        boolean settled = single(c, "SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = " + id) > 0;
        try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_QUEUE (MAIL_ID, PRIORITY, CREATED_AT, DUE_AT,"
                + " ATTEMPTS_LEFT, SMTP_ACCOUNT, CAMPAIGN, SETTLED, CLAIMER, CLAIM_NO) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            s.setLong(1, id);
            s.setInt(2, priority);
            s.setTimestamp(3, createdAt);
            s.setTimestamp(4, dueAt);
            s.setInt(5, attemptsLeft);
            s.setString(6, account);
            s.setString(7, campaign);
            s.setInt(8, settled ? 1 : 0);
            if (claimer == null) {
                s.setNull(9, Types.BIGINT);
                s.setNull(10, Types.INTEGER);
            } else {
                s.setLong(9, claimer);
                s.setInt(10, 1);
            }
            s.executeUpdate();
        }
    }

    /**
     * Writes one row of a mail's log as the stores do: its id from the log's sequence, in commit order where the
     * database has no transaction ids (the event clock's row lock first, held to the commit). It publishes no event.
     */
    /**
     * Adds {@code delta} to the kept count of {@code status} (MAIL_STATUS_COUNT, bucket 0), as the stores do for each
     * status they set or take a mail out of; nothing for a live status (QUEUED, SENDING) or none, which are counted
     * from MAIL_QUEUE.
     */
    private static void count(Connection c, String status, int delta) throws SQLException {
        if (status != null && !status.equals("QUEUED") && !status.equals("SENDING")) {
            update(c, "UPDATE MAIL_STATUS_COUNT SET MAILS = MAILS + ? WHERE STATUS = ? AND BUCKET = 0", delta, status);
        }
    }

    private static void log(Connection c, long mailId, Timestamp at, String outcome, Integer code, String error,
                            String mailStatus) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        boolean postgres = product.contains("postgres");
        if (!postgres) {
            update(c, "UPDATE EVENT_CLOCK SET TICK = TICK + 1 WHERE ID = 1");
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_ATTEMPT (" + (postgres ? "" : "ID, ")
                + "MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME, SMTP_REPLY_CODE,"
                + " SMTP_REPLY_TEXT, ERROR, MAIL_STATUS) VALUES (" + (postgres ? "" : "NEXT VALUE FOR MAIL_LOG_SEQ, ")
                + "?, ?, ?, 'probe', 'probe', ?, ?, ?, ?, ?)")) {
            s.setLong(1, mailId);
            s.setTimestamp(2, at);
            s.setTimestamp(3, at);
            s.setString(4, outcome);
            if (code == null) {
                s.setNull(5, Types.INTEGER);
            } else {
                s.setInt(5, code);
            }
            s.setString(6, error);
            s.setString(7, error);
            s.setString(8, mailStatus);
            s.executeUpdate();
        }
    }

    private static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            return s.executeUpdate();
        }
    }

    private static String text(Connection c, String sql, long id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
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
        try (Connection c = dataSource.getConnection()) {
            response.getWriter().print(fail(c, id(request, "id"), Integer.parseInt(request.getParameter("code"))));
        } catch (SQLException e) {
            response.setStatus(500);
            e.printStackTrace(response.getWriter());
        }
    }

    /** @return 1 when the mail was free in the queue and is now FAILED after one attempt answered {@code code}; else 0 */
    private static int fail(Connection c, long id, int code) throws SQLException {
        Timestamp now = Timestamp.valueOf(LocalDateTime.now(ZoneOffset.UTC));
        c.setAutoCommit(false);
        try {
            int changed = update(c, "DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ? AND CLAIMER IS NULL", id);
            if (changed == 1) {
                log(c, id, now, "FAILED", code, code + " refused by the probe", "FAILED");
                count(c, "FAILED", 1);
            }
            c.commit();
            return changed;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
    }

    private static long id(HttpServletRequest request, String name) {
        return Long.parseLong(request.getParameter(name));
    }

    /** @return how many of the mails with these ids (comma-separated) are still in MAIL_QUEUE */
    private static long unfinishedIds(Connection c, String ids) throws SQLException {
        java.util.List<Long> all = java.util.Arrays.stream(ids.split(",")).map(String::strip).filter(t -> !t.isEmpty())
                .map(Long::valueOf).toList();
        long count = 0;
        for (int from = 0; from < all.size(); from += 500) {
            java.util.List<Long> part = all.subList(from, Math.min(all.size(), from + 500));
            count += single(c, "SELECT COUNT(*) FROM MAIL_QUEUE WHERE MAIL_ID IN (" + part.stream().map(String::valueOf)
                    .collect(java.util.stream.Collectors.joining(",")) + ")");
        }
        return count;
    }

    private static long single(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }

    /** The outcomes of the attempt log (AttemptOutcome.SHOWN): the log's other rows record status changes. */
    private static final String SHOWN = "'SENT', 'FAILED', 'IN_DOUBT', 'BOUNCED', 'DELAYED', 'COMPLAINED'";

    private static void attempts(Connection c, long from, long to, PrintWriter out) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, LEASE_OWNER, STARTED_AT, FINISHED_AT, OUTCOME"
                + " FROM MAIL_ATTEMPT WHERE MAIL_ID BETWEEN ? AND ? AND OUTCOME IN (" + SHOWN + ") ORDER BY ID")) {
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

    /**
     * The tables a request could change, with the columns that identify a row's order (not MAIL_CLAIMER: the
     * dispatcher's claimers come and go while no mail changes).
     */
    private static final String[][] DIGESTED = {{"MAIL_MESSAGE", "ID"}, {"MAIL_QUEUE", "MAIL_ID"}, {"MAIL_ATTEMPT", "ID"},
            {"MAIL_ATTACHMENT", "MAIL_ID, SEQ_NO"}, {"MAIL_HEADER", "MAIL_ID, SEQ_NO"},
            {"MAIL_RECIPIENT", "MAIL_ID, ADDRESS, ATTEMPT_ID"}};

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
        try (PreparedStatement s = c.prepareStatement("SELECT q.MAIL_ID FROM MAIL_QUEUE q LEFT JOIN MAIL_CLAIMER c"
                + " ON c.ID = q.CLAIMER WHERE (q.CLAIMER IS NULL AND q.DUE_AT <= ?) OR (q.CLAIMER IS NOT NULL AND"
                + " c.EXPIRES_AT <= ?) ORDER BY q.MAIL_ID")) {
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

    private static void holding(Connection c, String address, PrintWriter out) throws SQLException {
        java.util.regex.Pattern whole = java.util.regex.Pattern.compile("(?<![a-z0-9._%+-])"
                + java.util.regex.Pattern.quote(address.toLowerCase(java.util.Locale.ROOT)) + "(?![a-z0-9-]|\\.[a-z0-9])");
        java.sql.DatabaseMetaData meta = c.getMetaData();
        String q = meta.getIdentifierQuoteString();
        java.util.List<String[]> columns = new java.util.ArrayList<>();
        try (ResultSet r = meta.getColumns(c.getCatalog(), c.getSchema(), "%", "%")) {
            while (r.next()) {
                columns.add(new String[]{r.getString("TABLE_NAME"), r.getString("COLUMN_NAME")});
            }
        }
        for (String[] column : columns) {
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT " + q + column[1] + q + " FROM " + q + column[0] + q)) {
                int type = r.getMetaData().getColumnType(1);
                boolean binary = type == Types.BLOB || type == Types.BINARY || type == Types.VARBINARY
                        || type == Types.LONGVARBINARY;
                while (r.next()) {
                    byte[] bytes = binary ? r.getBytes(1) : null;
                    String value = binary ? (bytes == null ? null
                            : new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1)) : r.getString(1);
                    if (value != null && whole.matcher(value.toLowerCase(java.util.Locale.ROOT)).find()) {
                        out.println(column[0] + "." + column[1]);
                        break;
                    }
                }
            }
        }
    }
}
