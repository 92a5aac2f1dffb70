package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.RecipientStatus;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.mailqueue.queue.control.Sql.bindIds;
import static dev.mailqueue.queue.control.Sql.marks;

/**
 * The reads of mails' state that more than one store makes, on the caller's connection: a mail's status (the view
 * MAIL_STATE) and the recipients its earlier attempts settled (MAIL_RECIPIENT). The stores share these here rather
 * than calling into each other.
 */
final class StateReads {

    private StateReads() {
    }

    /**
     * @param c   the caller's connection
     * @param ids mails, at most {@link Sql#IN_LIST}
     * @return the current status of each of the mails that exist, by id
     * @throws SQLException when the database fails
     */
    static Map<Long, MailStatus> statuses(Connection c, List<Long> ids) throws SQLException {
        Map<Long, MailStatus> statuses = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, STATUS FROM MAIL_STATE WHERE MAIL_ID IN ("
                + marks(ids.size()) + ")")) {
            bindIds(s, 1, ids);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String status = r.getString(2);
                    if (status != null) {
                        statuses.put(r.getLong(1), MailStatus.valueOf(status));
                    }
                }
            }
        }
        return statuses;
    }

    /**
     * @param c   the caller's connection
     * @param ids mails, at most {@link Sql#IN_LIST}
     * @return the recipients that earlier attempts settled (accepted, refused for good, suppressed), by lower-case
     *         address: of each recipient's results (MAIL_RECIPIENT, insert only) the latest counts
     * @throws SQLException when the database fails
     */
    static Map<Long, Map<String, RecipientStatus>> settledRecipients(Connection c, List<Long> ids) throws SQLException {
        Map<Long, Map<String, RecipientStatus>> settled = new HashMap<>();
        if (ids.isEmpty()) {
            return settled;
        }
        Map<Long, Map<String, long[]>> latest = new HashMap<>(); // address -> attempt id, status ordinal
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, ADDRESS, STATUS, ATTEMPT_ID FROM MAIL_RECIPIENT"
                + " WHERE MAIL_ID IN (" + marks(ids.size()) + ")")) {
            bindIds(s, 1, ids);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    Map<String, long[]> mail = latest.computeIfAbsent(r.getLong(1), id -> new HashMap<>());
                    String key = r.getString(2).toLowerCase(Locale.ROOT);
                    long attempt = r.getLong(4);
                    long[] known = mail.get(key);
                    if (known == null || known[0] < attempt) {
                        mail.put(key, new long[]{attempt, RecipientStatus.valueOf(r.getString(3)).ordinal()});
                    }
                }
            }
        }
        latest.forEach((mailId, byAddress) -> byAddress.forEach((address, known) -> {
            RecipientStatus status = RecipientStatus.values()[(int) known[1]];
            if (status != RecipientStatus.DEFERRED) {
                settled.computeIfAbsent(mailId, id -> new HashMap<>()).put(address, status);
            }
        }));
        return settled;
    }
}
