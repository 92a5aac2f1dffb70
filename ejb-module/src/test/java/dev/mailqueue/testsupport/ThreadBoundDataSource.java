package dev.mailqueue.testsupport;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.Callable;
import java.util.logging.Logger;

/**
 * A data source over the JDBC driver that does for tests what the container's does in a JTA
 * transaction: inside {@link #inTransaction} every {@link #getConnection()} of the thread returns the
 * same connection (auto-commit off), whose {@code close()} does nothing, and the work commits at the end
 * or rolls back on failure. Outside, each call gets a new auto-commit connection.
 */
public final class ThreadBoundDataSource implements DataSource {

    private final String url;
    private final String user;
    private final String password;
    private final ThreadLocal<Connection> bound = new ThreadLocal<>();

    ThreadBoundDataSource(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /**
     * Runs work in one transaction of this thread, as a REQUIRES_NEW EJB method would.
     *
     * @return what the work returned
     * @throws Exception what the work threw, after rolling back
     */
    public <T> T inTransaction(Callable<T> work) throws Exception {
        if (bound.get() != null) {
            return work.call();
        }
        Connection connection = DriverManager.getConnection(url, user, password);
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        bound.set(connection);
        try {
            T result = work.call();
            connection.commit();
            return result;
        } catch (Exception | Error e) {
            connection.rollback();
            throw e;
        } finally {
            bound.remove();
            connection.close();
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection current = bound.get();
        if (current == null) {
            Connection fresh = DriverManager.getConnection(url, user, password);
            fresh.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return fresh;
        }
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(current, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public Connection getConnection(String username, String pw) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
