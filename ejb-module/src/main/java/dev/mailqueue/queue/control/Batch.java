package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * A JDBC batch of one statement, run as one round trip where the driver does so, and row by row on
 * Derby: Derby 10.16 drops the {@link java.util.Calendar} of {@code setTimestamp(i, t, cal)} from a
 * batched row and takes the JVM's zone instead (checked: in Europe/Berlin a batched 02:20 UTC on 29 March
 * 2026 is stored as 03:20), so its times would move by an hour in a summer-time change. Embedded Derby
 * runs a batch as a loop anyway, so row by row costs nothing there. Bind a row's parameters on
 * {@link #statement()}, then {@link #add()}.
 *
 * <p>Open a batch only for one or more rows: closed through Liberty's statement wrapper, a MariaDB
 * Connector/J statement that never ran throws a NullPointerException (the wrapper asks it for more
 * results, and it has none).
 */
final class Batch implements AutoCloseable {

    private final PreparedStatement statement;
    private final boolean rowByRow;
    private int[] counts = new int[16];
    private int rows;

    /**
     * @param connection the transaction's connection
     * @param kind       the database
     * @param sql        the statement
     * @throws SQLException when the driver refuses it
     */
    Batch(Connection connection, DatabaseKind kind, String sql) throws SQLException {
        this.statement = connection.prepareStatement(sql);
        this.rowByRow = kind == DatabaseKind.DERBY;
    }

    /** @return the statement to bind the next row's parameters on */
    PreparedStatement statement() {
        return statement;
    }

    /** Adds the row just bound (on Derby: runs it). */
    void add() throws SQLException {
        if (rowByRow) {
            if (rows == counts.length) {
                counts = Arrays.copyOf(counts, rows * 2);
            }
            counts[rows] = statement.executeUpdate();
        } else {
            statement.addBatch();
        }
        rows++;
    }

    /** @return the update count of each row, in order; nothing is sent for an empty batch */
    int[] execute() throws SQLException {
        if (rows == 0) {
            return new int[0];
        }
        return rowByRow ? Arrays.copyOf(counts, rows) : statement.executeBatch();
    }

    @Override
    public void close() throws SQLException {
        statement.close();
    }
}
