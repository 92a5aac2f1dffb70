package dev.mailqueue.queue.control;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Small JDBC helpers the stores share (the queue's, and the webhook publisher's of {@code webhook.control}): IN
 * lists, typed NULLs, text fitted to its column, a key's row made sure of, and the test for a refused duplicate.
 * No statement here reads or writes a mail.
 */
public final class Sql {

    /** Ids per IN list: well below the bind-parameter limits of every database (SQL Server: 2,100). */
    public static final int IN_LIST = 500;

    private Sql() {
    }

    /**
     * A count of 1 means the guarded row was changed. A driver that cannot tell
     * ({@link Statement#SUCCESS_NO_INFO}) is taken as changed: the statement was conditional, so no
     * other owner's row was touched; only a note may then be missing.
     */
    public static boolean applied(int count) {
        return count == 1 || count == Statement.SUCCESS_NO_INFO;
    }

    /**
     * @param ids ids, any number
     * @return them in consecutive lists of at most {@value #IN_LIST}, one per IN list
     */
    public static List<List<Long>> chunks(List<Long> ids) {
        List<List<Long>> chunks = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += IN_LIST) {
            chunks.add(ids.subList(from, Math.min(ids.size(), from + IN_LIST)));
        }
        return chunks;
    }

    /**
     * Binds ids to consecutive parameters.
     *
     * @param s    the statement
     * @param from the first parameter's index, 1 or more
     * @param ids  the ids
     * @throws SQLException when the driver refuses
     */
    public static void bindIds(PreparedStatement s, int from, List<Long> ids) throws SQLException {
        int i = from;
        for (Long id : ids) {
            s.setLong(i++, id);
        }
    }

    /**
     * Binds a text, or a NULL typed VARCHAR for null.
     *
     * @throws SQLException when the driver refuses
     */
    public static void setText(PreparedStatement s, int index, String value) throws SQLException {
        if (value == null) {
            s.setNull(index, Types.VARCHAR);
        } else {
            s.setString(index, value);
        }
    }

    /**
     * Bodies: CLOB on Derby, TEXT on PostgreSQL, LONGTEXT on MariaDB; all take a string, and a NULL typed
     * VARCHAR (PostgreSQL's driver binds a CLOB NULL as an OID, which a TEXT column refuses).
     */
    public static void setLongText(PreparedStatement s, int index, String value) throws SQLException {
        setText(s, index, value);
    }

    /** @return {@code count} bind markers, comma separated, for an IN list */
    public static String marks(int count) {
        return String.join(",", Collections.nCopies(count, "?"));
    }

    /** @return the first column of every row the query returns, as ids */
    public static List<Long> readIds(PreparedStatement query) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
        }
        return ids;
    }

    /**
     * @param text      any text, or null
     * @param maxLength the column's length in characters, at least 1
     * @return the text trimmed and cut to {@code maxLength} characters, or null: free text (errors, SMTP replies)
     *         fitted into its column
     */
    public static String clip(String text, int maxLength) {
        if (text == null) {
            return null;
        }
        String trimmed = text.strip();
        return trimmed.length() <= maxLength ? trimmed : trimmed.substring(0, maxLength);
    }

    /**
     * @param failure what a statement threw
     * @return true when a cause is an SQL integrity constraint violation (SQLState class 23, ISO/IEC 9075), e.g. a
     *         duplicate key
     */
    public static boolean isUniqueViolation(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Inserts the keyed row unless it is there; a concurrent insert of the same key is no error.
     *
     * @param c         the caller's connection
     * @param table     a table whose other columns may be null, named by the caller, never by a user
     * @param keyColumn its key column
     * @param key       the key
     * @throws SQLException when the database fails otherwise
     */
    public static void ensureRow(Connection c, String table, String keyColumn, String key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM " + table + " WHERE " + keyColumn + " = ?")) {
            s.setString(1, key);
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    return;
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table + " (" + keyColumn + ") VALUES (?)")) {
            s.setString(1, key);
            s.executeUpdate();
        } catch (SQLException e) {
            if (!isUniqueViolation(e)) {
                throw e;
            }
        }
    }
}
