package dev.mailqueue.it.apps;

import jakarta.annotation.Resource;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads queue rows with plain JDBC on the server's data source, and leaves a row as a worker that
 * died mid-send would. Answers text/plain.
 * <ul>
 *   <li>{@code GET ?op=count}: rows in MAIL_MESSAGE</li>
 *   <li>{@code GET ?op=sending&from=&to=}: rows in SENDING with ids in [from, to]</li>
 *   <li>{@code GET ?op=attempts&from=&to=}: one line per attempt: mailId,leaseOwner,startedMs,finishedMs</li>
 *   <li>{@code POST ?op=lease&id=&owner=&expiresInMs=}: a QUEUED row becomes SENDING, leased to owner,
 *       due now; answers the rows changed</li>
 *   <li>{@code POST ?op=fail&id=&code=}: a QUEUED row ends FAILED after one attempt the SMTP server
 *       answered with reply {@code code} (e.g. 550, a bounce); answers the rows changed</li>
 * </ul>
 */
@WebServlet("/db")
public class ProbeServlet extends HttpServlet {

    @Resource(lookup = "jdbc/mailqueue")
    DataSource dataSource;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        PrintWriter out = response.getWriter();
        try (Connection c = dataSource.getConnection()) {
            switch (request.getParameter("op")) {
                case "count" -> out.print(single(c, "SELECT COUNT(*) FROM MAIL_MESSAGE"));
                case "sending" -> out.print(single(c, "SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'SENDING'"
                        + " AND ID BETWEEN " + id(request, "from") + " AND " + id(request, "to")));
                case "attempts" -> attempts(c, id(request, "from"), id(request, "to"), out);
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
        if ("fail".equals(request.getParameter("op"))) {
            fail(request, response);
            return;
        }
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE MAIL_MESSAGE SET STATUS = 'SENDING', LEASE_OWNER = ?,"
                     + " LEASE_EXPIRES_AT = ?, NOT_BEFORE = ? WHERE ID = ? AND STATUS = 'QUEUED'")) {
            s.setString(1, request.getParameter("owner"));
            s.setTimestamp(2, Timestamp.valueOf(now.plusNanos(Long.parseLong(request.getParameter("expiresInMs")) * 1_000_000)));
            s.setTimestamp(3, Timestamp.valueOf(now));
            s.setLong(4, id(request, "id"));
            response.getWriter().print(s.executeUpdate());
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
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, LEASE_OWNER, STARTED_AT, FINISHED_AT"
                + " FROM MAIL_ATTEMPT WHERE MAIL_ID BETWEEN ? AND ? ORDER BY ID")) {
            s.setLong(1, from);
            s.setLong(2, to);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.println(r.getLong(1) + "," + r.getString(2) + "," + millis(r.getTimestamp(3))
                            + "," + millis(r.getTimestamp(4)));
                }
            }
        }
    }

    private static long millis(Timestamp utcWallClock) {
        return utcWallClock.toLocalDateTime().toInstant(ZoneOffset.UTC).toEpochMilli();
    }
}
