package dev.mailqueue.schema.control;

import jakarta.inject.Inject;
import dev.mailqueue.server.control.QueueDatabase;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.logging.Logger;

/**
 * At application start, applies the versioned DDL of {@code sql/<database>/} (packaged as
 * {@code db/migration/<database>/V*__*.sql}) with Flyway before anything reads the queue; the database
 * is the one the data source connects to ({@link DatabaseKind}). Flyway keeps its history table beside
 * ours and takes a lock on it, so servers starting together migrate once.
 *
 * @throws org.flywaydb.core.api.FlywayException (at start-up) when the database cannot be reached or a
 *         script fails; the application then does not start
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN) // Flyway commits on its own connections
public class SchemaMigrator {

    private static final Logger LOG = Logger.getLogger(SchemaMigrator.class.getName());

    @Inject
    @QueueDatabase
    DataSource dataSource;

    @PostConstruct
    void migrate() {
        DatabaseKind database;
        try (Connection connection = dataSource.getConnection()) {
            database = DatabaseKind.of(connection.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the mailqueue database jdbc/mailqueue", e);
        }
        String location = "classpath:db/migration/" + database.folder();
        MigrateResult result = Flyway.configure(SchemaMigrator.class.getClassLoader())
                .dataSource(dataSource)
                .locations(location)
                .skipDefaultCallbacks(true) // no SQL callbacks; avoids probing classpath:db/callback
                .failOnMissingLocations(true)
                .load()
                .migrate();
        LOG.info(() -> "mailqueue schema on " + database + " is at version " + result.targetSchemaVersion
                + " (" + result.migrationsExecuted + " migrations applied now)");
    }
}
