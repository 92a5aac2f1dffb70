package dev.mailqueue.health.boundary;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Ready only while the queue database answers: a connection from {@code jdbc/mailqueue} that passes
 * {@link Connection#isValid(int)} within {@value #TIMEOUT_SECONDS} s. Without it nothing can be enqueued
 * or sent.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    static final int TIMEOUT_SECONDS = 5;

    @Resource(lookup = "jdbc/mailqueue")
    DataSource dataSource;

    @Override
    public HealthCheckResponse call() {
        try (Connection connection = dataSource.getConnection()) {
            boolean valid = connection.isValid(TIMEOUT_SECONDS);
            return HealthCheckResponse.named("database").status(valid)
                    .withData("product", connection.getMetaData().getDatabaseProductName()).build();
        } catch (SQLException e) {
            return HealthCheckResponse.named("database").down().withData("error", e.getMessage()).build();
        }
    }
}
