package dev.mailqueue.queue.control;

import dev.mailqueue.testsupport.QueueDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The notification channel between servers against a real PostgreSQL (the PostgreSQL profile; skipped elsewhere):
 * another server's announcement wakes it within milliseconds, its own does not, and after its session is
 * killed (as a restart or a failover does) it listens again by itself.
 */
@Tag("database")
class PostgresNotificationsTest {

    /** Not the queue's own channel: test servers on the same database must not hear this test. */
    private static final String CHANNEL = "mailqueue_notifications_test";

    private final BlockingQueue<Long> wakes = new LinkedBlockingQueue<>();
    private PGSimpleDataSource dataSource;
    private PostgresNotifications listener;
    private Thread thread;

    @BeforeEach
    void listen() throws SQLException, InterruptedException {
        assumeTrue("postgresql".equals(QueueDatabase.KIND), "LISTEN/NOTIFY is PostgreSQL's");
        dataSource = new PGSimpleDataSource();
        dataSource.setURL("jdbc:postgresql://" + QueueDatabase.serverAddress() + "/test");
        dataSource.setUser("postgres");
        dataSource.setApplicationName("PostgresNotificationsTest");
        listener = new PostgresNotifications(dataSource, CHANNEL, "server-a", () -> wakes.add(System.nanoTime()));
        thread = new Thread(listener, "listener");
        thread.start();
        waitUntilListening();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (listener != null) {
            listener.stop();
            thread.join(5_000);
        }
    }

    @Test
    void anotherServersAnnouncementWakesItAtOnceAndItsOwnDoesNot() throws Exception {
        announce("server-a");
        assertThat(wakes.poll(500, TimeUnit.MILLISECONDS)).as("its own announcement").isNull();

        List<Long> micros = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long sent = System.nanoTime();
            announce("server-b");
            Long woken = wakes.poll(5, TimeUnit.SECONDS);
            assertThat(woken).as("woken by announcement " + i).isNotNull();
            micros.add((woken - sent) / 1_000);
        }
        micros.sort(null);
        System.out.printf("wake-up after another server's announcement: p50 %d µs, max %d µs%n", micros.get(10), micros.get(19));
        assertThat(micros.get(10)).as("p50, µs").isLessThan(100_000);
    }

    @Test
    void afterItsSessionIsKilledItListensAgainAndIsWokenAsBefore() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement kill = c.createStatement()) {
            kill.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'PostgresNotificationsTest'"
                    + " AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'");
        }
        Thread.sleep(PostgresNotifications.RECONNECT.toMillis() / 2); // the kill reaches the listener
        waitUntilListening();
        wakes.clear();
        announce("server-b");
        assertThat(wakes.poll(5, TimeUnit.SECONDS)).as("woken after the reconnect").isNotNull();
    }

    private void waitUntilListening() throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (listening() != 1) {
            assertThat(System.nanoTime()).as("listening within 10 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private void announce(String server) throws SQLException {
        PostgresNotifications.announce(dataSource, CHANNEL, server);
    }

    /** @return the sessions of this test that listen (their last statement was LISTEN) */
    private int listening() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement count = c.createStatement();
             var rows = count.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'PostgresNotificationsTest'"
                     + " AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
