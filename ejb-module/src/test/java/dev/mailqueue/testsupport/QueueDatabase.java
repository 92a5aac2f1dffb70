package dev.mailqueue.testsupport;

import dev.mailqueue.queue.control.ClaimStore;
import dev.mailqueue.queue.control.EnqueueStore;
import dev.mailqueue.queue.control.OperatorStore;
import dev.mailqueue.queue.control.OutcomeStore;
import dev.mailqueue.queue.control.QueueTables;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Persistence;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A fresh database with the production schema (the real DDL, applied by Flyway as
 * {@code SchemaMigrator} does), a data source over the real JDBC driver that binds a transaction to the
 * thread as the container does ({@link ThreadBoundDataSource}), the store on it, and the real
 * {@code mailqueue} persistence unit of EclipseLink in Java SE (resource-local) for what JPA reads.
 *
 * <p>Which database: system property {@code mailqueue.test.db} = {@code derby} (default: in memory),
 * {@code postgresql} (a throwaway schema in database {@code test}, user postgres) or
 * {@code mariadb} (a throwaway database, user root) — the Maven profiles of the same names set it — on
 * the server at {@code mailqueue.test.db.host} and {@code mailqueue.test.db.port} (default 127.0.0.1 and
 * the database's usual port, 5432 or 3306). As a JUnit extension ({@code @RegisterExtension static final QueueDatabase db =
 * QueueDatabase.perTestClass();}) it creates the database before the class's tests, empties it before
 * each test, and drops it after the last.
 */
public final class QueueDatabase implements AutoCloseable, BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** Held so that the level set on it stays: Flyway tells at INFO what it does for every database. */
    private static final Logger FLYWAY_LOG = Logger.getLogger("org.flywaydb");

    static {
        FLYWAY_LOG.setLevel(Level.WARNING);
        if (System.getProperty("derby.stream.error.file") == null) {
            System.setProperty("derby.stream.error.file", Path.of("target", "derby.log").toString());
        }
    }

    /** The database the tests run on: derby, postgresql or mariadb. */
    public static final String KIND = System.getProperty("mailqueue.test.db", "derby");

    /** {@code //host:port/} of the database server, for {@code jdbc:postgresql:} or {@code jdbc:mariadb:}. */
    private static final String SERVER = "//" + property("mailqueue.test.db.host", "127.0.0.1") + ":"
            + property("mailqueue.test.db.port", "mariadb".equals(KIND) ? "3306" : "5432") + "/";

    private String name;
    private String url;
    private String user;
    private String password;
    private ThreadBoundDataSource dataSource;
    private QueueTables tables;
    private EntityManagerFactory emf;
    private String target;

    private QueueDatabase() {
    }

    /** @return true when the tests run on Derby */
    public static boolean isDerby() {
        return "derby".equals(KIND);
    }

    /** @return a database to be opened by JUnit around a test class */
    public static QueueDatabase perTestClass() {
        return new QueueDatabase();
    }

    /** @return a new, empty database at the current schema version; the caller closes it */
    public static QueueDatabase create() {
        QueueDatabase db = new QueueDatabase();
        db.open();
        return db;
    }

    /**
     * @param version a schema version, e.g. {@code "12"}: the migrations up to it are applied, no later one
     * @return a new, empty database at that version; the caller closes it (and may {@link #migrate()} it on)
     */
    public static QueueDatabase createAt(String version) {
        QueueDatabase db = new QueueDatabase();
        db.target = version;
        db.open();
        return db;
    }

    /** Applies the migrations not yet applied, up to the current version, as a newer server would at start. */
    public void migrate() {
        flyway(null).migrate();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        open();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        clean();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    private void open() {
        name = "mq_unit_" + DATABASES.incrementAndGet() + "_" + ProcessHandle.current().pid();
        switch (KIND) {
            case "postgresql" -> {
                url = "jdbc:postgresql:" + SERVER + "test?currentSchema=" + name;
                user = "postgres";
                password = "postgres";
                execute("jdbc:postgresql:" + SERVER + "test", "CREATE SCHEMA " + name);
            }
            case "mariadb" -> {
                url = "jdbc:mariadb:" + SERVER + name + "?useBulkStmts=false"; // as the data source
                user = "root";
                password = "";
                execute("jdbc:mariadb:" + SERVER, "CREATE DATABASE " + name);
            }
            default -> {
                url = "jdbc:derby:memory:" + name + ";create=true";
                user = "app";
                password = "app";
            }
        }
        flyway(target).migrate();
        url = url.replace(";create=true", "");
        dataSource = new ThreadBoundDataSource(url, user, password);
    }

    private org.flywaydb.core.Flyway flyway(String version) {
        var configuration = Flyway.configure(QueueDatabase.class.getClassLoader())
                .dataSource(url, user, password)
                .locations("classpath:db/migration/" + KIND)
                .skipDefaultCallbacks(true)
                .failOnMissingLocations(true);
        if (version != null) {
            configuration.target(version);
        }
        return configuration.load();
    }

    private void execute(String serverUrl, String sql) {
        try (Connection c = DriverManager.getConnection(serverUrl, user, password); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** @return the data source, transaction-per-thread as in the container */
    public ThreadBoundDataSource dataSource() {
        return dataSource;
    }

    /** @return the enqueue store on this database */
    public EnqueueStore enqueueStore() {
        return EnqueueStore.on(tables());
    }

    /** @return the claim store on this database */
    public ClaimStore claimStore() {
        return ClaimStore.on(tables());
    }

    /** @return the outcome store on this database */
    public OutcomeStore outcomeStore() {
        return OutcomeStore.on(tables());
    }

    /** @return the operator store on this database */
    public OperatorStore operatorStore() {
        return OperatorStore.on(tables());
    }

    /** @return the queue's tables on this database, one instance per database (it caches id blocks) */
    public synchronized QueueTables tables() {
        if (tables == null) {
            tables = QueueTables.on(dataSource);
        }
        return tables;
    }

    /** Runs {@code work} in one transaction of this thread and commits; rolls back on failure. */
    public <T> T inTransaction(Callable<T> work) {
        try {
            return dataSource.inTransaction(work);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return a new plain JDBC connection to this database (auto-commit on) */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /** Runs work with a new EntityManager in one resource-local transaction, as the container's JPA would. */
    public <T> T jpa(Function<EntityManager, T> work) {
        if (emf == null) {
            Map<String, Object> props = new HashMap<>();
            props.put("jakarta.persistence.transactionType", "RESOURCE_LOCAL");
            props.put("jakarta.persistence.jtaDataSource", ""); // cancels jdbc/mailqueue of persistence.xml
            props.put("jakarta.persistence.nonJtaDataSource", "");
            props.put("jakarta.persistence.jdbc.url", url);
            props.put("jakarta.persistence.jdbc.user", user);
            props.put("jakarta.persistence.jdbc.password", password);
            props.put("eclipselink.logging.level", "WARNING");
            emf = Persistence.createEntityManagerFactory("mailqueue", props);
        }
        EntityManager em = emf.createEntityManager();
        EntityTransaction tx = em.getTransaction();
        try {
            tx.begin();
            T result = work.apply(em);
            tx.commit();
            return result;
        } finally {
            if (tx.isActive()) {
                tx.rollback();
            }
            em.close();
        }
    }

    /**
     * @param sql    a query returning one number
     * @param params its parameters
     * @return the number
     */
    public long number(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement s = bound(c, sql, params)) {
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /**
     * @param sql    a query returning one text
     * @param params its parameters
     * @return the text, or null
     */
    public String text(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement s = bound(c, sql, params)) {
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** @return {@code sql} prepared on {@code c} with {@code params} bound in order, by {@code setObject} */
    private static PreparedStatement bound(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement s = c.prepareStatement(sql);
        try {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            return s;
        } catch (SQLException e) {
            s.close();
            throw e;
        }
    }

    /** @param sql an update to run alone, e.g. to set up a state */
    public int update(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement s = bound(c, sql, params)) {
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /**
     * The tables that hold a mail's content, each with the column that names the mail: written in the enqueue's
     * transaction, never rewritten (the lean store, V13 and V15).
     */
    public static final java.util.List<String[]> CONTENT_TABLES = java.util.List.of(
            new String[]{"MAIL_MESSAGE", "ID"}, new String[]{"MAIL_HEADER", "MAIL_ID"},
            new String[]{"MAIL_ATTACHMENT", "MAIL_ID"}, new String[]{"MAIL_RAW", "MAIL_ID"});

    /**
     * A digest of every content row of a mail: each column of each row of {@link #CONTENT_TABLES}, by name, binary
     * columns as their bytes, rows in a fixed order. Equal digests mean no content column changed.
     *
     * @param mailId the mail
     * @return hex SHA-256 of the rows, prefixed by the number of rows per table ({@code MAIL_HEADER=2 ...})
     */
    public String contentDigest(long mailId) {
        try (Connection c = connect()) {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            StringBuilder counts = new StringBuilder();
            for (String[] table : CONTENT_TABLES) {
                java.util.List<byte[]> rows = new java.util.ArrayList<>();
                try (PreparedStatement s = c.prepareStatement("SELECT * FROM " + table[0] + " WHERE " + table[1] + " = ?")) {
                    s.setLong(1, mailId);
                    try (ResultSet r = s.executeQuery()) {
                        java.sql.ResultSetMetaData meta = r.getMetaData();
                        while (r.next()) {
                            java.io.ByteArrayOutputStream row = new java.io.ByteArrayOutputStream();
                            for (int i = 1; i <= meta.getColumnCount(); i++) {
                                int type = meta.getColumnType(i);
                                boolean binary = type == java.sql.Types.BLOB || type == java.sql.Types.BINARY
                                        || type == java.sql.Types.VARBINARY || type == java.sql.Types.LONGVARBINARY;
                                byte[] value = binary ? r.getBytes(i) : bytes(r.getString(i));
                                row.writeBytes(bytes(meta.getColumnLabel(i).toUpperCase(java.util.Locale.ROOT) + "="
                                        + (value == null ? "null" : value.length) + ":"));
                                if (value != null) {
                                    row.writeBytes(value);
                                }
                            }
                            rows.add(row.toByteArray());
                        }
                    }
                }
                rows.sort(java.util.Arrays::compare);
                counts.append(table[0]).append('=').append(rows.size()).append(' ');
                for (byte[] row : rows) {
                    sha.update(row);
                    sha.update((byte) 0);
                }
                sha.update((byte) 1);
            }
            return counts + java.util.HexFormat.of().formatHex(sha.digest());
        } catch (SQLException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("content of mail " + mailId, e);
        }
    }

    private static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * @param sql    a query
     * @param params its parameters
     * @return every row, its columns as text joined by {@code /} (null as {@code null}), in the query's order
     */
    public java.util.List<String> rows(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement s = bound(c, sql, params)) {
            java.util.List<String> rows = new java.util.ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                int columns = r.getMetaData().getColumnCount();
                while (r.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= columns; i++) {
                        row.append(i > 1 ? "/" : "").append(r.getString(i));
                    }
                    rows.add(row.toString());
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /**
     * @return the counts per status the stores keep (V17), read as the statistics read them
     */
    public java.util.Map<dev.mailqueue.api.MailStatus, Long> keptCounts() {
        try (Connection c = connect()) {
            return dev.mailqueue.queue.control.StatusCounts.read(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Deletes every mail (and with it attempts, recipients and parts), the rate state, reports, suppressions
     * and pauses; the counts per status go back to 0.
     */
    public void clean() {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM MAIL_QUEUE");
            s.executeUpdate("DELETE FROM MAIL_CLAIMER");
            s.executeUpdate("DELETE FROM MAIL_ATTEMPT");
            s.executeUpdate("DELETE FROM MAIL_RECIPIENT");
            s.executeUpdate("DELETE FROM MAIL_ATTACHMENT");
            s.executeUpdate("DELETE FROM MAIL_HEADER");
            s.executeUpdate("DELETE FROM MAIL_MESSAGE");
            s.executeUpdate("DELETE FROM SMTP_ACCOUNT_SLOT");
            s.executeUpdate("DELETE FROM SMTP_ACCOUNT_RATE");
            s.executeUpdate("DELETE FROM BOUNCE_REPORT");
            s.executeUpdate("DELETE FROM SUPPRESSION");
            s.executeUpdate("DELETE FROM DISPATCH_PAUSE");
            s.executeUpdate("DELETE FROM CAMPAIGN_PAUSE");
            s.executeUpdate("DELETE FROM MAIL_TEMPLATE");
            s.executeUpdate("UPDATE MAIL_STATUS_COUNT SET MAILS = 0");
            s.executeUpdate("DELETE FROM MAIL_LOG_HOUR");
            s.executeUpdate("UPDATE MAIL_LOG_HOUR_MARK SET COUNTED_UNTIL = '1970-01-01 00:00:00'");
            s.executeUpdate("UPDATE RETENTION_MARK SET REACHED = '1970-01-01 00:00:00'");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (emf != null) {
            emf.close();
        }
        switch (KIND) {
            case "postgresql" -> execute("jdbc:postgresql:" + SERVER + "test", "DROP SCHEMA " + name + " CASCADE");
            case "mariadb" -> execute("jdbc:mariadb:" + SERVER, "DROP DATABASE " + name);
            default -> {
                try {
                    DriverManager.getConnection("jdbc:derby:memory:" + name + ";drop=true").close();
                } catch (SQLException dropped) {
                    // Derby reports a successful drop as SQLState 08006
                }
            }
        }
    }

    /** @return {@code host:port} of the database server the tests run on (PostgreSQL or MariaDB) */
    public static String serverAddress() {
        return SERVER.substring(2, SERVER.length() - 1);
    }

    /** A system property, or {@code otherwise} when it is missing or blank (Maven passes an unset one as blank). */
    private static String property(String name, String otherwise) {
        String value = System.getProperty(name, "");
        return value.isBlank() ? otherwise : value;
    }
}
