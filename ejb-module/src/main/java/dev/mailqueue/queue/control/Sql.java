package dev.mailqueue.queue.control;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Small JDBC helpers the stores share. */
final class Sql {

    /** Ids per IN list: well below the bind-parameter limits of every database (SQL Server: 2,100). */
    static final int IN_LIST = 500;

    private Sql() {
    }

    /**
     * A count of 1 means the guarded row was changed. A driver that cannot tell
     * ({@link Statement#SUCCESS_NO_INFO}) is taken as changed: the statement was conditional, so no
     * other owner's row was touched; only a note may then be missing.
     */
    static boolean applied(int count) {
        return count == 1 || count == Statement.SUCCESS_NO_INFO;
    }

    static List<List<Long>> chunks(List<Long> ids) {
        List<List<Long>> chunks = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += IN_LIST) {
            chunks.add(ids.subList(from, Math.min(ids.size(), from + IN_LIST)));
        }
        return chunks;
    }

    static void bindIds(PreparedStatement s, int from, List<Long> ids) throws SQLException {
        int i = from;
        for (Long id : ids) {
            s.setLong(i++, id);
        }
    }

    static void setText(PreparedStatement s, int index, String value) throws SQLException {
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
    static void setLongText(PreparedStatement s, int index, String value) throws SQLException {
        setText(s, index, value);
    }

    /** @return {@code count} bind markers, comma separated, for an IN list */
    static String marks(int count) {
        return String.join(",", Collections.nCopies(count, "?"));
    }

    /** @return the first column of every row the query returns, as ids */
    static List<Long> readIds(PreparedStatement query) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                ids.add(rows.getLong(1));
            }
        }
        return ids;
    }
}
