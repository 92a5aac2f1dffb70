package dev.mailqueue.schema.control;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

import javax.sql.DataSource;
import java.util.logging.Logger;

/**
 * At application start, applies the versioned DDL of {@code sql/<mailqueue.db>/} (packaged as
 * {@code db/migration/<db>/V*__*.sql}) with Flyway before anything reads the queue. Flyway keeps its
 * history table beside ours and takes a lock on it, so servers starting together migrate once.
 *
 * @throws org.flywaydb.core.api.FlywayException (at start-up) when the database cannot be reached or a
 *         script fails; the application then does not start
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN) // Flyway commits on its own connections
public class SchemaMigrator {

    private static final Logger LOG = Logger.getLogger(SchemaMigrator.class.getName());

    @Resource(lookup = "jdbc/mailqueue")
    DataSource dataSource;

    @Inject
    @ConfigProperty(name = "mailqueue.db", defaultValue = "derby")
    String database;

    @PostConstruct
    void migrate() {
        String location = "classpath:db/migration/" + database;
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
