package dev.mailqueue.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL primary and a synchronous streaming-replication standby of its own, made for one test with
 * the Debian tools of the PostgreSQL installed on this machine ({@code pg_createcluster},
 * {@code pg_basebackup -R}, {@code pg_ctlcluster}), on two free ports of 127.0.0.1 with trust
 * authentication, and removed again by {@link #close()}. The primary names the standby in
 * {@code synchronous_standby_names}, so a commit returns only once the standby has it
 * ({@code synchronous_commit = on}). {@link #stopPrimary()} and {@link #promoteStandby()} are what happens when
 * the primary's machine dies and a failure detector such as Patroni takes over.
 *
 * <p>Needs root (the clusters belong to the {@code postgres} user) and PostgreSQL's server package; the
 * PostgreSQL profile's machine has both (docs/databases-and-scaling.md, "High availability").
 */
final class ReplicatedPostgres implements AutoCloseable {

    /** Clusters of this helper are named with this prefix and the test JVM's process id. */
    private static final String PREFIX = "mqfailover";

    private final String version;
    private final String primary;
    private final String standby;
    private final int primaryPort;
    private final int standbyPort;

    private ReplicatedPostgres(String version, String primary, String standby, int primaryPort, int standbyPort) {
        this.version = version;
        this.primary = primary;
        this.standby = standby;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
    }

    /**
     * Creates and starts the primary and its synchronous standby (about 6 s), then creates {@code database}
     * with {@code schema} in it on the primary (the standby gets them by replication).
     *
     * @throws IllegalStateException when a tool fails; its output is in the message
     */
    static ReplicatedPostgres start(String database, String schema) throws IOException, InterruptedException, SQLException {
        String version = run("pg_lsclusters", "-h").lines().map(line -> line.split("\\s+")[0]).findFirst()
                .orElseThrow(() -> new IllegalStateException("no PostgreSQL cluster on this machine to take the version from"));
        removeLeftovers(version);
        long pid = ProcessHandle.current().pid();
        ReplicatedPostgres pair = new ReplicatedPostgres(version, PREFIX + pid + "p", PREFIX + pid + "s", freePort(), freePort());
        try {
            pair.create(database, schema);
        } catch (IOException | InterruptedException | SQLException | RuntimeException e) {
            pair.close();
            throw e;
        }
        return pair;
    }

    private void create(String database, String schema) throws IOException, InterruptedException, SQLException {
        run("pg_createcluster", version, primary, "-p", String.valueOf(primaryPort), "--", "--auth=trust");
        run("pg_conftool", version, primary, "set", "synchronous_standby_names", standby);
        run("pg_ctlcluster", version, primary, "start");
        run("pg_createcluster", version, standby, "-p", String.valueOf(standbyPort), "--", "--auth=trust");
        String dataDir = "/var/lib/postgresql/" + version + "/" + standby;
        // the standby's data directory is the primary's base backup; -R writes standby.signal and primary_conninfo
        run("bash", "-c", "rm -rf " + dataDir + "/*");
        run("runuser", "-u", "postgres", "--", "pg_basebackup", "-D", dataDir, "-R", "--checkpoint=fast", "-h", "127.0.0.1",
                "-p", String.valueOf(primaryPort), "-U", "postgres", "-d", "application_name=" + standby);
        run("pg_ctlcluster", version, standby, "start");
        execute(primaryPort, "postgres", "CREATE DATABASE " + database);
        execute(primaryPort, database, "CREATE SCHEMA " + schema);
        String state = query(primaryPort, "postgres", "SELECT sync_state FROM pg_stat_replication WHERE application_name = '" + standby + "'");
        if (!"sync".equals(state)) {
            throw new IllegalStateException("the standby does not replicate synchronously: " + state);
        }
    }

    /** @return a PgJDBC URL naming both servers, which connects to whichever of them takes writes */
    String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:" + standbyPort + "/" + database
                + "?targetServerType=primary";
    }

    /** @return the primary's port: until {@link #stopPrimary()} */
    int primaryPort() {
        return primaryPort;
    }

    /** @return the standby's port: after {@link #promoteStandby()}, the primary's */
    int standbyPort() {
        return standbyPort;
    }

    /**
     * Stops the primary at once ({@code pg_ctlcluster stop -m immediate}, no shutdown checkpoint), as when its
     * machine dies: its clients' connections break and new ones are refused.
     */
    void stopPrimary() throws IOException, InterruptedException {
        run("pg_ctlcluster", version, primary, "stop", "-m", "immediate");
    }

    /** Stops the standby (a fast shutdown): while it is down, every commit on the primary waits for it. */
    void stopStandby() throws IOException, InterruptedException {
        run("pg_ctlcluster", version, standby, "stop", "-m", "fast");
    }

    /** Starts the stopped standby again; it catches up with the primary, and the waiting commits return. */
    void startStandby() throws IOException, InterruptedException {
        run("pg_ctlcluster", version, standby, "start");
    }

    /** Promotes the standby, which then takes writes, as a failure detector does once it has decided. */
    void promoteStandby() throws IOException, InterruptedException {
        run("pg_ctlcluster", version, standby, "promote");
    }

    /**
     * After {@link #stopPrimary()} and {@link #promoteStandby()}: the old primary's machine comes back and joins
     * the new primary as its standby, from a fresh base backup, replicating asynchronously (the new primary
     * names no synchronous standby), as a cluster manager rebuilds a failed node. Its port is
     * {@link #primaryPort()} still.
     */
    void rejoinOldPrimaryAsAsyncStandby() throws IOException, InterruptedException, SQLException {
        String dataDir = "/var/lib/postgresql/" + version + "/" + primary;
        // once promoted in its turn it must not wait for a synchronous standby that is gone
        run("pg_conftool", version, primary, "remove", "synchronous_standby_names");
        run("bash", "-c", "rm -rf " + dataDir + "/*");
        run("runuser", "-u", "postgres", "--", "pg_basebackup", "-D", dataDir, "-R", "--checkpoint=fast", "-h", "127.0.0.1",
                "-p", String.valueOf(standbyPort), "-U", "postgres", "-d", "application_name=" + primary);
        run("pg_ctlcluster", version, primary, "start");
        for (int i = 0; i < 100 && !"async".equals(query(standbyPort, "postgres",
                "SELECT sync_state FROM pg_stat_replication WHERE application_name = '" + primary + "'")); i++) {
            Thread.sleep(100);
        }
        String state = query(standbyPort, "postgres",
                "SELECT sync_state FROM pg_stat_replication WHERE application_name = '" + primary + "'");
        if (!"async".equals(state)) {
            throw new IllegalStateException("the old primary does not replicate asynchronously: " + state);
        }
    }

    /**
     * Stops the asynchronous standby of {@link #rejoinOldPrimaryAsAsyncStandby()} from receiving anything more
     * (its {@code primary_conninfo} emptied and reloaded), as a slow or broken link leaves a standby behind,
     * and returns once its WAL receiver is gone: from then on the new primary commits without it.
     */
    void cutReplicationToOldPrimary() throws SQLException, InterruptedException {
        execute(primaryPort, "postgres", "ALTER SYSTEM SET primary_conninfo = ''");
        execute(primaryPort, "postgres", "SELECT pg_reload_conf()");
        for (int i = 0; i < 100 && !"0".equals(query(primaryPort, "postgres", "SELECT COUNT(*) FROM pg_stat_wal_receiver")); i++) {
            Thread.sleep(50);
        }
        if (!"0".equals(query(primaryPort, "postgres", "SELECT COUNT(*) FROM pg_stat_wal_receiver"))) {
            throw new IllegalStateException("the asynchronous standby still receives");
        }
    }

    /** Stops the new primary at once (its machine dies), as {@link #stopPrimary()} did the first. */
    void stopNewPrimary() throws IOException, InterruptedException {
        run("pg_ctlcluster", version, standby, "stop", "-m", "immediate");
    }

    /** Promotes the old primary, now a standby that lags behind: what it did not receive is gone. */
    void promoteOldPrimary() throws IOException, InterruptedException {
        run("pg_ctlcluster", version, primary, "promote");
    }

    /**
     * Runs one query on the server at {@code port} and returns the first column of its first row.
     *
     * @throws SQLException when the server refuses it
     */
    static String query(int port, String database, String sql) throws SQLException {
        try (Connection connection = connect(port, database); Statement statement = connection.createStatement();
             var rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    private static void execute(int port, String database, String sql) {
        try (Connection connection = connect(port, database); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static Connection connect(int port, String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, "postgres", "");
    }

    /** Stops and deletes both clusters, whatever state they are in. */
    @Override
    public void close() throws IOException, InterruptedException {
        drop(version, primary);
        drop(version, standby);
    }

    /** Drops clusters of this helper left by a test JVM that is gone (killed before its close). */
    private static void removeLeftovers(String version) throws IOException, InterruptedException {
        for (String line : run("pg_lsclusters", "-h").lines().toList()) {
            String[] columns = line.split("\\s+");
            if (columns.length > 1 && columns[1].startsWith(PREFIX)) {
                String owner = columns[1].substring(PREFIX.length(), columns[1].length() - 1);
                boolean alive = owner.chars().allMatch(Character::isDigit)
                        && ProcessHandle.of(Long.parseLong(owner)).isPresent();
                if (!alive) {
                    drop(version, columns[1]);
                }
            }
        }
    }

    private static void drop(String version, String cluster) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("pg_dropcluster", version, cluster, "--stop"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes(); // a cluster that was never made: nothing to drop
        process.waitFor(1, TimeUnit.MINUTES);
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }

    private static int freePort() throws IOException {
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return free.getLocalPort();
        }
    }
}
