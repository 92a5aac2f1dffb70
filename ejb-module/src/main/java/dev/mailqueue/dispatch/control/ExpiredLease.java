package dev.mailqueue.dispatch.control;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A SENDING row whose lease ran out before its claimer recorded an outcome.
 *
 * @param mailId            the row
 * @param owner             the claimer that held it
 * @param sendStartedAt     UTC time that claimer began the SMTP transaction, or null if it never did
 *                          (then nothing was sent and the row simply goes back to the queue)
 * @param attemptsRemaining attempts left before the lost one
 */
record ExpiredLease(long mailId, String owner, LocalDateTime sendStartedAt, int attemptsRemaining) {

    /** @return true when the server may have received the mail: the outcome is in doubt */
    boolean inDoubt() {
        return sendStartedAt != null;
    }

    /**
     * @param connection the claim's connection
     * @param sql        a select of ID, LEASE_OWNER, SEND_STARTED_AT, ATTEMPTS_REMAINING with one {@code ?}: now
     * @param now        UTC now
     * @return the rows found
     * @throws SQLException when the database refuses
     */
    static List<ExpiredLease> read(Connection connection, String sql, LocalDateTime now) throws SQLException {
        List<ExpiredLease> found = new ArrayList<>();
        try (PreparedStatement pick = connection.prepareStatement(sql)) {
            pick.setTimestamp(1, Timestamp.valueOf(now));
            try (ResultSet rows = pick.executeQuery()) {
                while (rows.next()) {
                    Timestamp started = rows.getTimestamp(3);
                    found.add(new ExpiredLease(rows.getLong(1), rows.getString(2),
                            started == null ? null : started.toLocalDateTime(), rows.getInt(4)));
                }
            }
        }
        return found;
    }
}
