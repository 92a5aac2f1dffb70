package dev.mailqueue.queue.control;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;

/**
 * The database refused or failed a statement of a store ({@link QueueTables}). Unchecked: a caller in a container
 * transaction lets it roll the transaction back; the dispatcher tells a lost database
 * ({@link #isConnectionFailure}) from a refusal of one statement's data.
 */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what the store was doing
     * @param cause   the driver's exception
     */
    public StoreException(String message, SQLException cause) {
        super(message + ": " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")", cause);
    }

    /**
     * @param failure anything a database call threw, with its causes
     * @return true when a cause says the connection or the database is gone, so that the same work may
     *         succeed later: SQLState class 08 (connection exception, SQL:2016), the driver's
     *         recoverable or transient-connection exceptions, or a database shutting down (SQLState
     *         57P01..57P03 on PostgreSQL)
     */
    public static boolean isConnectionFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLRecoverableException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                if (state != null && (state.startsWith("08") || state.startsWith("57P"))) {
                    return true;
                }
            }
            if (t instanceof java.net.SocketException || t instanceof java.io.EOFException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * @param failure anything a database call threw, with its causes
     * @return true when trying the same work again may succeed at once: a deadlock victim or a
     *         serialization failure (SQLState class 40), or a lock wait that timed out
     */
    public static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientException && !(t instanceof SQLTransientConnectionException)) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("40") || "55P03".equals(sql.getSQLState()))) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
