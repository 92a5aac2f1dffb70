package dev.mailqueue.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * PostgreSQL's own counters, read before and after a phase: what the phase cost the database. Generic:
 * it knows nothing of the queue's tables, only the schema they are in and the database user the
 * application connects as.
 * <ul>
 *   <li><b>WAL</b>: {@code pg_current_wal_lsn()} (bytes) and {@code pg_stat_wal.wal_fpi} (full-page
 *       images). Both are counters of the whole cluster: whatever else writes meanwhile (other
 *       databases, a timed checkpoint, autovacuum when it is on) counts too. Read right before and right
 *       after the phase, nothing else of the benchmark's own runs in between.</li>
 *   <li><b>Tuple writes</b>: {@code pg_stat_user_tables} of the schema, per table: {@code n_tup_ins},
 *       {@code n_tup_upd} (of which {@code n_tup_hot_upd}), {@code n_tup_del}. A backend publishes these
 *       at the end of a transaction at most once a second, and one that then goes idle only after
 *       {@code PGSTAT_IDLE_INTERVAL}, 10 s (PostgreSQL 15: checked here, a backend's three inserts
 *       appeared 10 s after it went idle): {@link #settle} waits for that, and for the application to be
 *       idle again, so that they are complete.</li>
 *   <li><b>Statements</b>: {@code pg_stat_statements} entries of the application's user in this
 *       database (top-level statements; {@code calls}, and the WAL they wrote themselves, which leaves
 *       out commit records). The benchmark's own sessions switch the tracking off for themselves
 *       ({@code pg_stat_statements.track=none}, {@link #connect}), so its polls are not counted. Needs
 *       the extension, {@link #statementsUnavailable()} says why not when it is missing.</li>
 * </ul>
 * A checkpoint ({@link #checkpoint}) right before a phase makes its first change of every page write a
 * full-page image, as in steady use, rather than finding pages already logged since the last one.
 */
final class PgCounters implements AutoCloseable {

    /** How to enable the statement counts, printed where they are missing. */
    static final String HOW_TO_ENABLE_STATEMENTS = "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements',"
            + " restart PostgreSQL, CREATE EXTENSION pg_stat_statements in the database; see src/benchmark/README.md";

    private static final String TABLES = """
            SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd, autovacuum_count, autoanalyze_count
            FROM pg_stat_user_tables WHERE schemaname = ?""";

    private static final String WAL = """
            SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint, (SELECT wal_fpi FROM pg_stat_wal),
                   (SELECT sum(tup_inserted + tup_updated + tup_deleted) FROM pg_stat_database)::bigint""";

    /** %s: the extension's schema (the connection's search_path may be the queue's schema alone). */
    private static final String STATEMENTS = """
            SELECT s.queryid, sum(s.calls)::bigint, sum(s.rows)::bigint, sum(s.wal_bytes)::bigint, min(s.query)
            FROM %s.pg_stat_statements s
            WHERE s.toplevel AND s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND s.userid = (SELECT oid FROM pg_roles WHERE rolname = ?)
            GROUP BY s.queryid""";

    private static final String STATEMENTS_EVICTED = "SELECT dealloc FROM %s.pg_stat_statements_info";

    private final Connection connection;
    private final String schema;
    private final String applicationUser;
    private final String statementsUnavailable;
    private String statementsSchema;

    /**
     * @param jdbcUrl         the database the application uses
     * @param user            a user who may read the statistics (and run CHECKPOINT: a superuser or
     *                        pg_checkpoint)
     * @param password        its password
     * @param schema          whose tables' tuple writes count
     * @param applicationUser the database user the application connects as, whose statements count
     * @throws SQLException when the database cannot be reached
     */
    PgCounters(String jdbcUrl, String user, String password, String schema, String applicationUser)
            throws SQLException {
        this.connection = connect(jdbcUrl, user, password);
        this.schema = schema;
        this.applicationUser = applicationUser;
        this.statementsUnavailable = checkStatements();
    }

    /**
     * A connection for the benchmark's own queries, autocommit, whose statements pg_stat_statements does
     * not count ({@code -c pg_stat_statements.track=none}: a superuser's session setting; without the
     * right to set it, a plain connection, whose statements then count as the application's).
     *
     * @param jdbcUrl  the database
     * @param user     database user
     * @param password its password
     * @return the connection
     * @throws SQLException when the database cannot be reached
     */
    static Connection connect(String jdbcUrl, String user, String password) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        props.setProperty("ApplicationName", "mailqueue-benchmark");
        props.setProperty("options", "-c pg_stat_statements.track=none");
        Connection c;
        try {
            c = DriverManager.getConnection(jdbcUrl, props);
        } catch (SQLException e) {
            if (!"42501".equals(e.getSQLState())) { // insufficient privilege: not a superuser
                throw e;
            }
            props.remove("options");
            c = DriverManager.getConnection(jdbcUrl, props);
        }
        c.setAutoCommit(true);
        return c;
    }

    /** @return null when statements are counted, else why not and how to enable it */
    String statementsUnavailable() {
        return statementsUnavailable;
    }

    /** @return the schema whose tables count */
    String schema() {
        return schema;
    }

    /** @return the user whose statements count */
    String applicationUser() {
        return applicationUser;
    }

    private String checkStatements() throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet row = s.executeQuery("SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n"
                     + " ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'")) {
            if (!row.next()) {
                return "the extension pg_stat_statements is not created in this database; " + HOW_TO_ENABLE_STATEMENTS;
            }
            statementsSchema = row.getString(1);
        }
        try (Statement s = connection.createStatement();
             ResultSet row = s.executeQuery("SELECT count(*) FROM " + statementsSchema + ".pg_stat_statements_info")) {
            row.next();
            return null;
        } catch (SQLException e) { // "pg_stat_statements must be loaded via shared_preload_libraries"
            return "pg_stat_statements is not loaded (" + e.getMessage().lines().findFirst().orElse("") + "); "
                    + HOW_TO_ENABLE_STATEMENTS;
        }
    }

    /**
     * One table's cumulative counters.
     *
     * @param inserted     n_tup_ins
     * @param updated      n_tup_upd
     * @param deleted      n_tup_del
     * @param hotUpdated   n_tup_hot_upd (part of updated)
     * @param autovacuums  autovacuum_count
     * @param autoanalyzes autoanalyze_count
     */
    record TableCounts(long inserted, long updated, long deleted, long hotUpdated, long autovacuums,
                       long autoanalyzes) {

        static final TableCounts ZERO = new TableCounts(0, 0, 0, 0, 0, 0);

        /** @return inserts, updates and deletes */
        long writes() {
            return inserted + updated + deleted;
        }

        TableCounts minus(TableCounts o) {
            return new TableCounts(inserted - o.inserted, updated - o.updated, deleted - o.deleted,
                    hotUpdated - o.hotUpdated, autovacuums - o.autovacuums, autoanalyzes - o.autoanalyzes);
        }

        TableCounts plus(TableCounts o) {
            return new TableCounts(inserted + o.inserted, updated + o.updated, deleted + o.deleted,
                    hotUpdated + o.hotUpdated, autovacuums + o.autovacuums, autoanalyzes + o.autoanalyzes);
        }
    }

    /**
     * One statement's cumulative counters (pg_stat_statements, summed over its entries of the user).
     *
     * @param query    its text as pg_stat_statements keeps it (constants as $n)
     * @param calls    executions
     * @param rows     rows returned or affected
     * @param walBytes WAL the statement itself wrote (not its commit record)
     */
    record StatementCounts(String query, long calls, long rows, long walBytes) {
    }

    /**
     * The counters at one instant.
     *
     * @param at           when read
     * @param walBytes     pg_current_wal_lsn() as bytes since 0/0
     * @param walFpi       full-page images so far (pg_stat_wal)
     * @param otherWrites  tuple writes so far in every other schema and database (pg_stat_database less the
     *                     schema's tables): work of others, whose WAL counts too
     * @param tables       per table of the schema
     * @param statements   per queryid, the application user's, or null when not available
     * @param evicted      pg_stat_statements_info.dealloc (entries dropped for room), or -1
     * @param settled      read once the tuple counters were complete and the application idle ({@link #settle})
     * @param checkpointed a CHECKPOINT ran right before this reading
     */
    record Snapshot(Instant at, long walBytes, long walFpi, long otherWrites, Map<String, TableCounts> tables,
                    Map<Long, StatementCounts> statements, long evicted, boolean settled, boolean checkpointed) {
    }

    /** @return the counters now (tuple counters as published so far) */
    Snapshot read() throws SQLException {
        return read(tables(), false, false);
    }

    private Snapshot read(Map<String, TableCounts> tables, boolean settled, boolean checkpointed) throws SQLException {
        long walBytes;
        long walFpi;
        long allWrites;
        try (Statement s = connection.createStatement(); ResultSet row = s.executeQuery(WAL)) {
            row.next();
            walBytes = row.getLong(1);
            walFpi = row.getLong(2);
            allWrites = row.getLong(3);
        }
        Map<Long, StatementCounts> statements = null;
        long evicted = -1;
        if (statementsUnavailable == null) {
            statements = new HashMap<>();
            try (PreparedStatement q = connection.prepareStatement(STATEMENTS.formatted(statementsSchema))) {
                q.setString(1, applicationUser);
                try (ResultSet row = q.executeQuery()) {
                    while (row.next()) {
                        statements.put(row.getLong(1), new StatementCounts(row.getString(5), row.getLong(2),
                                row.getLong(3), row.getLong(4)));
                    }
                }
            }
            try (Statement s = connection.createStatement();
                 ResultSet row = s.executeQuery(STATEMENTS_EVICTED.formatted(statementsSchema))) {
                row.next();
                evicted = row.getLong(1);
            }
        }
        return new Snapshot(Instant.now(), walBytes, walFpi, allWrites - writes(tables), tables, statements, evicted,
                settled, checkpointed);
    }

    private Map<String, TableCounts> tables() throws SQLException {
        Map<String, TableCounts> tables = new HashMap<>();
        try (PreparedStatement q = connection.prepareStatement(TABLES)) {
            q.setString(1, schema);
            try (ResultSet row = q.executeQuery()) {
                while (row.next()) {
                    tables.put(row.getString(1), new TableCounts(row.getLong(2), row.getLong(3), row.getLong(4),
                            row.getLong(5), row.getLong(6), row.getLong(7)));
                }
            }
        }
        return tables;
    }

    /**
     * Waits until the phase's tuple counts are surely published, then reads everything. PostgreSQL 15
     * publishes a backend's counts at the end of a transaction at most once a second and, when the
     * backend then goes idle, 10 s later (PGSTAT_IDLE_INTERVAL); and the application may still work for
     * the phase after it (the outbox marks events published every 2 s). So this reads the counters every
     * second and returns once the schema's tuple writes over the last {@code quiet} (more than 10 s) were
     * no more than {@code slack} a second: what the idle application writes anyway (a timer renewing its
     * lease, about one a second), not a late flush or trailing work of the phase.
     *
     * @param quiet    the window; more than PostgreSQL's 10 s idle flush interval
     * @param slack    tuple writes a second that still count as idle
     * @param deadline when to read anyway (the snapshot then says it did not settle)
     * @return the counters
     */
    Snapshot settle(Duration quiet, double slack, Instant deadline) throws SQLException, InterruptedException {
        List<long[]> readings = new ArrayList<>(); // {nanoTime, writes}
        Map<String, TableCounts> now = tables();
        readings.add(new long[]{System.nanoTime(), writes(now)});
        while (true) {
            boolean late = !Instant.now().plusSeconds(1).isBefore(deadline);
            if (!late) {
                Thread.sleep(1000);
            }
            now = tables();
            long t = System.nanoTime();
            long w = writes(now);
            readings.add(new long[]{t, w});
            long[] windowStart = null; // the latest reading at least `quiet` ago
            for (long[] r : readings) {
                if (t - r[0] >= quiet.toNanos()) {
                    windowStart = r;
                }
            }
            if (windowStart != null && w - windowStart[1] <= slack * (t - windowStart[0]) / 1e9) {
                return read(now, true, false);
            }
            if (late) {
                return read(now, false, false);
            }
        }
    }

    private static long writes(Map<String, TableCounts> tables) {
        return tables.values().stream().mapToLong(TableCounts::writes).sum();
    }

    /**
     * Runs CHECKPOINT, then reads everything again (a checkpoint writes no tuples; the WAL position moves).
     *
     * @param before the settled reading right before
     * @return the counters after the checkpoint
     */
    Snapshot checkpoint(Snapshot before) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CHECKPOINT");
        }
        return read(tables(), before.settled(), true);
    }

    /**
     * Reads everything again a little after a settled reading, with nothing of the phase's in between.
     *
     * @param settled    the settled reading
     * @param checkpoint run a CHECKPOINT first
     * @return the counters now
     */
    Snapshot again(Snapshot settled, boolean checkpoint) throws SQLException {
        return checkpoint ? checkpoint(settled) : read(tables(), settled.settled(), false);
    }

    /**
     * What a phase cost: the difference of two snapshots.
     *
     * @param walBytes        WAL written (the whole cluster)
     * @param walFpi          full-page images among it
     * @param otherWrites     tuple writes in other schemas and databases meanwhile (catalogs included)
     * @param tables          per table of the schema with any write
     * @param total           the sum over the schema's tables
     * @param statements      per statement of the application's user with any call, or null when not
     *                        available
     * @param statementsLost  pg_stat_statements dropped entries meanwhile (the counts are then too low)
     * @param checkpointed    a CHECKPOINT ran right before the phase
     * @param settled         both snapshots were taken with the tuple counters still
     * @param seconds         from the first snapshot to the second
     */
    record Delta(long walBytes, long walFpi, long otherWrites, Map<String, TableCounts> tables, TableCounts total,
                 Map<Long, StatementCounts> statements, boolean statementsLost, boolean checkpointed,
                 boolean settled, double seconds) {

        static Delta between(Snapshot before, Snapshot after) {
            Map<String, TableCounts> tables = new LinkedHashMap<>();
            TableCounts total = TableCounts.ZERO;
            for (Map.Entry<String, TableCounts> e : after.tables().entrySet()) {
                TableCounts d = e.getValue().minus(before.tables().getOrDefault(e.getKey(), TableCounts.ZERO));
                total = total.plus(d);
                if (d.writes() != 0 || d.autovacuums() != 0 || d.autoanalyzes() != 0) {
                    tables.put(e.getKey(), d);
                }
            }
            Map<Long, StatementCounts> statements = null;
            if (before.statements() != null && after.statements() != null) {
                statements = new HashMap<>();
                for (Map.Entry<Long, StatementCounts> e : after.statements().entrySet()) {
                    StatementCounts was = before.statements().get(e.getKey());
                    StatementCounts now = e.getValue();
                    // An entry new in the phase, or evicted and made again (its calls began again at 0), counts whole.
                    StatementCounts d = was == null || now.calls() < was.calls() ? now
                            : new StatementCounts(now.query(), now.calls() - was.calls(), now.rows() - was.rows(),
                            now.walBytes() - was.walBytes());
                    if (d.calls() > 0) {
                        statements.put(e.getKey(), d);
                    }
                }
            }
            return new Delta(after.walBytes() - before.walBytes(), after.walFpi() - before.walFpi(),
                    after.otherWrites() - before.otherWrites(), tables, total,
                    statements, before.evicted() >= 0 && after.evicted() != before.evicted(), before.checkpointed(),
                    before.settled() && after.settled(),
                    Duration.between(before.at(), after.at()).toMillis() / 1e3);
        }

        /** @return statement calls, or -1 when not available */
        long calls() {
            return statements == null ? -1 : statements.values().stream().mapToLong(StatementCounts::calls).sum();
        }

        /** @return WAL the application's statements wrote themselves (without commit records), or -1 */
        long statementWalBytes() {
            return statements == null ? -1 : statements.values().stream().mapToLong(StatementCounts::walBytes).sum();
        }

        /** @return the HOT share of the updates, 0..1, or -1 without updates */
        double hotShare() {
            return total.updated() == 0 ? -1 : (double) total.hotUpdated() / total.updated();
        }

        /** @return the {@code n} statements with the most calls */
        List<StatementCounts> top(int n) {
            if (statements == null) {
                return List.of();
            }
            List<StatementCounts> all = new ArrayList<>(statements.values());
            all.sort(Comparator.comparingLong(StatementCounts::calls).reversed());
            return all.subList(0, Math.min(n, all.size()));
        }

        /** @return the tables written, most writes first */
        List<Map.Entry<String, TableCounts>> tablesByWrites() {
            List<Map.Entry<String, TableCounts>> all = new ArrayList<>(tables.entrySet());
            all.sort(Comparator.comparingLong((Map.Entry<String, TableCounts> e) -> e.getValue().writes()).reversed());
            return all;
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
