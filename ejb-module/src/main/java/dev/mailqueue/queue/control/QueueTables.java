package dev.mailqueue.queue.control;

import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.server.control.QueueDatabase;
import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.enterprise.context.ApplicationScoped;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The queue's tables on the container's data source ({@code jdbc/mailqueue}), and what kind of database
 * holds them. The stores of this package ({@link EnqueueStore}, {@link ClaimStore}, {@link OutcomeStore},
 * {@link OperatorStore}) hold every statement that changes a mail, in plain JDBC, never a provider's
 * connection: they run on any server and JPA provider. The webhook publisher's stores ({@code webhook.control})
 * keep their own tables in the same schema, on the same connections. Each store method takes a connection for the
 * duration of its call; in a JTA transaction (the callers' EJBs begin one) every call joins the same
 * transaction, so a caller groups calls into one unit of work and decides when it commits. Times are
 * bound as UTC ({@link SqlTime}).
 */
@ApplicationScoped
public class QueueTables {

    @Inject
    @QueueDatabase
    DataSource dataSource;

    private volatile DatabaseKind kind;

    private ErasureKey erasureKey;

    /** Reads {@value ErasureKey#SETTING} when the tables are first used; a secret too short stops the application. */
    @PostConstruct
    void readSettings() {
        erasureKey = Settings.fromConfig(QueueTables.class).optional(ErasureKey.SETTING).map(ErasureKey::of).orElse(null);
    }

    /**
     * @param dataSource a data source of the queue's schema
     * @return the tables on it, e.g. for tests outside a container
     */
    public static QueueTables on(DataSource dataSource) {
        QueueTables tables = new QueueTables();
        tables.dataSource = dataSource;
        return tables;
    }

    /**
     * @param key the key erased addresses are kept under, or null for none (erasure not set up)
     * @return these tables, with it (for tests outside a container; in one, it is read from the setting)
     */
    public QueueTables withErasureKey(ErasureKey key) {
        erasureKey = key;
        return this;
    }

    /**
     * @return the key erased addresses are kept under on the suppression list ({@value ErasureKey#SETTING}), or null
     *         when the setting is unset: the queue then refuses erasures, and looks up no keys
     */
    public ErasureKey erasureKey() {
        return erasureKey;
    }

    /**
     * @return a connection, enlisted in the caller's transaction if there is one
     * @throws SQLException when the database cannot be reached
     */
    public Connection connect() throws SQLException {
        return dataSource.getConnection();
    }

    /**
     * @param c a connection of this data source
     * @return the database's kind, found on first use
     * @throws SQLException when the database cannot say what it is
     */
    public DatabaseKind kind(Connection c) throws SQLException {
        DatabaseKind k = kind;
        if (k == null) {
            k = DatabaseKind.of(c.getMetaData().getDatabaseProductName());
            kind = k;
        }
        return k;
    }
}
