package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Persistence;
import org.flywaydb.core.Flyway;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A fresh database with the production schema (the real DDL, applied by Flyway as
 * {@code SchemaMigrator} does), and the real {@code mailqueue} persistence unit of EclipseLink on it in
 * Java SE: resource-local, the JTA data source of persistence.xml cancelled, SQL recorded by
 * {@link SqlRecorder}. Each transaction gets its own EntityManager, closed at the end, like the
 * container's transaction-scoped persistence context.
 *
 * <p>Which database: system property {@code mailqueue.test.db} = {@code derby} (default: in memory),
 * {@code postgresql} (a throwaway schema in database {@code test} on 127.0.0.1:5432, user postgres) or
 * {@code mariadb} (a throwaway database on 127.0.0.1:3306, user root) — the Maven profiles of the same
 * names set it.
 */
public final class QueueDatabase implements AutoCloseable, BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** Held so that the level set on it stays: Flyway tells at INFO what it does for every database. */
    private static final Logger FLYWAY_LOG = Logger.getLogger("org.flywaydb");

    static {
        FLYWAY_LOG.setLevel(Level.WARNING);
        // Derby writes derby.log into the working directory unless told otherwise.
        if (System.getProperty("derby.stream.error.file") == null) {
            System.setProperty("derby.stream.error.file", Path.of("target", "derby.log").toString());
        }
    }

    /** The database the tests run on: derby, postgresql or mariadb. */
    static final String KIND = System.getProperty("mailqueue.test.db", "derby");

    private String name;
    private String url;
    private String user;
    private String password;
    private EntityManagerFactory emf;

    /** For {@link #perTestClass()}: opened before the class's tests. */
    private QueueDatabase() {
    }

    private QueueDatabase(String name, String url, String user, String password, EntityManagerFactory emf) {
        this.name = name;
        this.url = url;
        this.user = user;
        this.password = password;
        this.emf = emf;
    }

    /** @return true when the tests run on Derby, whose lock table some tests read */
    static boolean isDerby() {
        return "derby".equals(KIND);
    }

    /**
     * For a test class: {@code @RegisterExtension static final QueueDatabase db =
     * QueueDatabase.perTestClass();} creates the database before the class's tests, empties it before
     * each test, and drops it after the last.
     *
     * @return a database to be opened by JUnit
     */
    public static QueueDatabase perTestClass() {
        return new QueueDatabase();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        QueueDatabase opened = create();
        name = opened.name;
        url = opened.url;
        user = opened.user;
        password = opened.password;
        emf = opened.emf;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        clean();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** @return a new, empty database at the current schema version */
    public static QueueDatabase create() {
        String name = "mq_unit_" + DATABASES.incrementAndGet() + "_" + ProcessHandle.current().pid();
        String url;
        String user;
        String password;
        switch (KIND) {
            case "postgresql" -> {
                url = "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + name;
                user = "postgres";
                password = "postgres";
                execute("jdbc:postgresql://127.0.0.1:5432/test", user, password, "CREATE SCHEMA " + name);
            }
            case "mariadb" -> {
                url = "jdbc:mariadb://127.0.0.1:3306/" + name + "?transactionIsolation=READ-COMMITTED&useBulkStmts=false"; // as the data source
                user = "root";
                password = "";
                execute("jdbc:mariadb://127.0.0.1:3306/", user, password, "CREATE DATABASE " + name);
            }
            default -> {
                url = "jdbc:derby:memory:" + name + ";create=true";
                user = "app";
                password = "app";
            }
        }
        Flyway.configure(QueueDatabase.class.getClassLoader())
                .dataSource(url, user, password)
                .locations("classpath:db/migration/" + KIND)
                .skipDefaultCallbacks(true)
                .failOnMissingLocations(true)
                .load()
                .migrate();
        Map<String, Object> props = new HashMap<>();
        props.put("jakarta.persistence.transactionType", "RESOURCE_LOCAL");
        props.put("jakarta.persistence.jtaDataSource", ""); // an empty name cancels jdbc/mailqueue of persistence.xml
        props.put("jakarta.persistence.nonJtaDataSource", "");
        props.put("jakarta.persistence.jdbc.url", url);
        props.put("jakarta.persistence.jdbc.user", user);
        props.put("jakarta.persistence.jdbc.password", password);
        props.put("eclipselink.logging.logger", SqlRecorder.class.getName());
        props.put("eclipselink.logging.level", "WARNING");
        props.put("eclipselink.logging.level.sql", "FINE");
        props.put("eclipselink.logging.parameters", "true");
        return new QueueDatabase(name, url.replace(";create=true", ""), user, password,
                Persistence.createEntityManagerFactory("mailqueue", props));
    }

    private static void execute(String url, String user, String password, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** @return the JDBC URL of this database, for a plain connection of a test's own */
    String url() {
        return url;
    }

    /** @return a new plain JDBC connection to this database (auto-commit on) */
    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /** @return a new EntityManager; the caller begins, commits and closes */
    EntityManager entityManager() {
        return emf.createEntityManager();
    }

    /** Runs {@code work} in one transaction of a new EntityManager and commits; rolls back on failure. */
    public <T> T inTransaction(Function<EntityManager, T> work) {
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

    /** Runs {@code work} in one transaction of a new EntityManager and commits; rolls back on failure. */
    public void run(Consumer<EntityManager> work) {
        inTransaction(em -> {
            work.accept(em);
            return null;
        });
    }

    /** Persists the rows in this order (so their ids rise in this order) and commits. */
    public List<MailMessage> insert(MailMessage... mails) {
        return inTransaction(em -> {
            for (MailMessage mail : mails) {
                em.persist(mail);
            }
            return List.of(mails);
        });
    }

    /** Deletes every mail and attempt, so the next test starts with an empty queue. */
    public void clean() {
        run(em -> {
            em.createQuery("DELETE FROM MailAttempt").executeUpdate();
            em.createQuery("DELETE FROM MailRecipient").executeUpdate();
            em.createQuery("DELETE FROM MailMessage").executeUpdate();
        });
    }

    /** @return the row as it is in the database now */
    public MailMessage reload(long id) {
        return inTransaction(em -> em.find(MailMessage.class, id));
    }

    /** @return the attempt log of a mail as it is in the database now, oldest first */
    public List<MailAttempt> attempts(long mailId) {
        return inTransaction(em -> em.createNamedQuery(MailAttempt.BY_MAIL, MailAttempt.class)
                .setParameter("mailId", mailId)
                .getResultList());
    }

    @Override
    public void close() {
        emf.close();
        switch (KIND) {
            case "postgresql" -> execute("jdbc:postgresql://127.0.0.1:5432/test", user, password,
                    "DROP SCHEMA " + name + " CASCADE");
            case "mariadb" -> execute("jdbc:mariadb://127.0.0.1:3306/", user, password, "DROP DATABASE " + name);
            default -> {
                try {
                    DriverManager.getConnection("jdbc:derby:memory:" + name + ";drop=true").close();
                } catch (SQLException dropped) {
                    // Derby reports a successful drop as SQLState 08006
                }
            }
        }
    }
}
