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
 * <p>The statement is prepared when the first row is bound: closed through Liberty's statement wrapper, a
 * MariaDB Connector/J statement that never ran throws a NullPointerException (the wrapper asks it for more
 * results, and it has none), so a batch that gets no row (e.g. no queue row for a mail suppressed at
 * enqueue) prepares nothing.
 */
public final class Batch implements AutoCloseable {

    private final Connection connection;
    private final String sql;
    private final boolean rowByRow;
    private PreparedStatement statement;
    private int[] counts = new int[16];
    private int rows;

    /**
     * @param connection the transaction's connection
     * @param kind       the database
     * @param sql        the statement
     */
    public Batch(Connection connection, DatabaseKind kind, String sql) {
        this.connection = connection;
        this.sql = sql;
        this.rowByRow = kind == DatabaseKind.DERBY;
    }

    /**
     * @return the statement to bind the next row's parameters on, prepared at the first call
     * @throws SQLException when the driver refuses the statement
     */
    public PreparedStatement statement() throws SQLException {
        if (statement == null) {
            statement = connection.prepareStatement(sql);
        }
        return statement;
    }

    /**
     * Adds the row just bound (on Derby: runs it).
     *
     * @throws SQLException when the driver refuses the row
     */
    public void add() throws SQLException {
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

    /**
     * @return the update count of each row, in order; nothing is sent for an empty batch
     * @throws SQLException when the database refuses a row
     */
    public int[] execute() throws SQLException {
        if (rows == 0) {
            return new int[0];
        }
        return rowByRow ? Arrays.copyOf(counts, rows) : statement.executeBatch();
    }

    @Override
    public void close() throws SQLException {
        if (statement != null) {
            statement.close();
        }
    }
}
