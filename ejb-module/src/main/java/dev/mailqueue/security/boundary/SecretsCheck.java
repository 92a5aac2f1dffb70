package dev.mailqueue.security.boundary;

import jakarta.inject.Inject;
import dev.mailqueue.server.control.QueueDatabase;
import dev.mailqueue.security.control.RequiredSecrets;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.logging.Logger;

/**
 * At application start, refuses to run without the secrets the shipped configuration leaves unset
 * ({@link RequiredSecrets}): the application does not start, and the log says which variable to set.
 * Liberty cannot make a configuration variable mandatory (an unset one stays as the literal text
 * {@code ${name}}, which would silently become the password), so the application checks.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class SecretsCheck {

    private static final Logger LOG = Logger.getLogger(SecretsCheck.class.getName());

    @Inject
    @QueueDatabase
    DataSource dataSource;

    @PostConstruct
    void check() {
        Config config = ConfigProvider.getConfig(SecretsCheck.class.getClassLoader());
        List<String> missing = RequiredSecrets.missing(name -> defined(config, name),
                name -> config.getOptionalValue(name, String.class), isDerby());
        if (!missing.isEmpty()) {
            missing.forEach(LOG::severe);
            throw new IllegalStateException("mailqueue does not start: " + String.join("; ", missing));
        }
    }

    /** @return whether any configuration source sets the property, also to the empty string */
    private static boolean defined(Config config, String name) {
        for (ConfigSource source : config.getConfigSources()) {
            if (source.getValue(name) != null) {
                return true;
            }
        }
        return false;
    }

    /** @return whether jdbc/mailqueue is embedded Derby; false when that cannot be told (then a password is needed) */
    private boolean isDerby() {
        try (Connection connection = dataSource.getConnection()) {
            return connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT).contains("derby");
        } catch (SQLException e) {
            return false;
        }
    }
}
