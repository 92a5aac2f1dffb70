package dev.mailqueue.health.boundary;

import jakarta.inject.Inject;
import dev.mailqueue.server.control.QueueDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import dev.mailqueue.health.registration.QueueHealthCheck;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Ready only while the queue database answers: a connection from {@code jdbc/mailqueue} that passes
 * {@link Connection#isValid(int)} within {@value #TIMEOUT_SECONDS} s. Without it nothing can be enqueued
 * or sent.
 */
@QueueHealthCheck(QueueHealthCheck.Procedure.READINESS)
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(DatabaseReadiness.class.getName());

    static final int TIMEOUT_SECONDS = 5;

    @Inject
    @QueueDatabase
    DataSource dataSource;

    @Override
    public HealthCheckResponse call() {
        try (Connection connection = dataSource.getConnection()) {
            boolean valid = connection.isValid(TIMEOUT_SECONDS);
            return HealthCheckResponse.named("database").status(valid)
                    .withData("product", connection.getMetaData().getDatabaseProductName()).build();
        } catch (SQLException e) {
            // Anyone may read readiness: the SQLState says what kind of failure, the message (host names,
            // users, driver detail) goes to the log only.
            LOG.log(Level.WARNING, "readiness: the queue database does not answer", e);
            return HealthCheckResponse.named("database").down()
                    .withData("error", "no connection (SQLState " + e.getSQLState() + ")").build();
        }
    }
}
