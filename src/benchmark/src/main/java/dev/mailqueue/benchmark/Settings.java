package dev.mailqueue.benchmark;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The benchmark's settings, from {@code --name=value} arguments; every one has a default.
 *
 * @param mails                 mails enqueued and dispatched in the measured run (N)
 * @param warmupMails           mails sent through the queue, and through the raw baseline, before
 *                              measuring, to warm up both JVMs (the JIT); 0 for none
 * @param enqueueBatchSize      mails per {@code POST /api/mails/batch} (the API takes up to 1,000)
 * @param httpConnections       concurrent HTTP connections that enqueue
 * @param claimers              the server's {@code mailqueue.dispatch.claimers}, also the raw
 *                              baseline's number of SMTP connections (K)
 * @param dispatchBatchSize     the server's {@code mailqueue.dispatch.batch-size}, for the summary
 * @param dispatchIntervalMillis the server's {@code mailqueue.dispatch.interval.ms}, for the summary
 * @param apiUrl                the mails resource, e.g. {@code http://localhost:9080/api/mails}
 * @param jdbcUrl               the queue's PostgreSQL database and schema
 * @param dbUser                database user
 * @param dbPassword            database password
 * @param smtpHost              the sink's host
 * @param smtpPort              the sink's port
 * @param sinkLog               smtp-sink's {@code -c} output, to count what it received; null to skip
 * @param stallTimeoutMillis    give up waiting for dispatch when no mail was sent for this long
 * @param latencyMails          mails of the latency phase: each enqueued alone into an idle queue
 * @param latencyPauseMillis    the pause after each of them is sent, so the queue is idle again
 * @param libertyPid            the server's JVM, for its CPU time; 0 to skip
 * @param sinkPid               smtp-sink's process, for its CPU time; 0 to skip
 * @param rounds                how many times the measurement (enqueue, dispatch, latency, raw, single
 *                              requests) runs after the one warm-up, printed side by side
 * @param dbSchema              the queue's schema: its tables' tuple writes count
 * @param appDbUser             the database user the server connects as: its statements count (empty:
 *                              {@code db-user})
 * @param checkpoint            CHECKPOINT right before the enqueue, dispatch and single-POST phases
 * @param settleQuietMillis     before and after a phase, read PostgreSQL's tuple counters once they grew
 *                              over this long a window (more than the 10 s by which PostgreSQL publishes
 *                              an idle backend's counts late) ...
 * @param settleSlack           ... by no more than this a second (what the idle application writes anyway)
 * @param settleMaxMillis       but no longer than this
 * @param wrkConnections        wrk's keep-alive connections in the single-request phase
 * @param wrkSeconds            how long each wrk load runs; 0 skips the single-request phase
 * @param outDir                where wrk's scripts and output go
 */
public record Settings(int mails, int warmupMails, int enqueueBatchSize, int httpConnections, int claimers,
                       int dispatchBatchSize, long dispatchIntervalMillis, String apiUrl, String jdbcUrl,
                       String dbUser, String dbPassword, String smtpHost, int smtpPort, Path sinkLog,
                       long stallTimeoutMillis, int latencyMails, long latencyPauseMillis, long libertyPid,
                       long sinkPid, int rounds, String dbSchema, String appDbUser, boolean checkpoint,
                       long settleQuietMillis, double settleSlack, long settleMaxMillis, int wrkConnections,
                       int wrkSeconds,
                       Path outDir) {

    private static final Map<String, String> DEFAULTS = Map.ofEntries(
            Map.entry("mails", "20000"),
            Map.entry("warmup-mails", "20000"),
            Map.entry("enqueue-batch-size", "1000"),
            Map.entry("http-connections", "4"),
            Map.entry("claimers", "4"),
            Map.entry("dispatch-batch-size", "100"),
            Map.entry("dispatch-interval-ms", "5000"),
            Map.entry("api-url", "http://localhost:9080/api/mails"),
            Map.entry("jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=mailqueue"),
            Map.entry("db-user", "postgres"),
            Map.entry("db-password", "postgres"),
            Map.entry("smtp-host", "127.0.0.1"),
            Map.entry("smtp-port", "2525"),
            Map.entry("sink-log", ""),
            Map.entry("stall-timeout-ms", "60000"),
            Map.entry("latency-mails", "200"),
            Map.entry("latency-pause-ms", "300"),
            Map.entry("liberty-pid", "0"),
            Map.entry("sink-pid", "0"),
            Map.entry("rounds", "2"),
            Map.entry("db-schema", "mailqueue"),
            Map.entry("app-db-user", ""),
            Map.entry("checkpoint", "true"),
            Map.entry("settle-quiet-ms", "11000"),
            Map.entry("settle-slack", "2"),
            Map.entry("settle-max-ms", "60000"),
            Map.entry("wrk-connections", "16"),
            Map.entry("wrk-seconds", "10"),
            Map.entry("out-dir", "."));

    /**
     * @param args {@code --name=value} pairs; names as in {@link #DEFAULTS}
     * @return the settings
     * @throws IllegalArgumentException for an unknown name, a malformed argument or a value out of range
     */
    public static Settings parse(String... args) {
        Map<String, String> values = new HashMap<>(DEFAULTS);
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, got: " + arg);
            }
            String name = arg.substring(2, eq);
            if (!DEFAULTS.containsKey(name)) {
                throw new IllegalArgumentException("unknown setting --" + name + "; known: " + names());
            }
            values.put(name, arg.substring(eq + 1));
        }
        String sinkLog = values.get("sink-log");
        Settings settings = new Settings(
                Integer.parseInt(values.get("mails")),
                Integer.parseInt(values.get("warmup-mails")),
                Integer.parseInt(values.get("enqueue-batch-size")),
                Integer.parseInt(values.get("http-connections")),
                Integer.parseInt(values.get("claimers")),
                Integer.parseInt(values.get("dispatch-batch-size")),
                Long.parseLong(values.get("dispatch-interval-ms")),
                values.get("api-url"),
                values.get("jdbc-url"),
                values.get("db-user"),
                values.get("db-password"),
                values.get("smtp-host"),
                Integer.parseInt(values.get("smtp-port")),
                sinkLog.isEmpty() ? null : Path.of(sinkLog),
                Long.parseLong(values.get("stall-timeout-ms")),
                Integer.parseInt(values.get("latency-mails")),
                Long.parseLong(values.get("latency-pause-ms")),
                Long.parseLong(values.get("liberty-pid")),
                Long.parseLong(values.get("sink-pid")),
                Integer.parseInt(values.get("rounds")),
                values.get("db-schema"),
                values.get("app-db-user").isEmpty() ? values.get("db-user") : values.get("app-db-user"),
                parseBoolean(values.get("checkpoint")),
                Long.parseLong(values.get("settle-quiet-ms")),
                Double.parseDouble(values.get("settle-slack")),
                Long.parseLong(values.get("settle-max-ms")),
                Integer.parseInt(values.get("wrk-connections")),
                Integer.parseInt(values.get("wrk-seconds")),
                Path.of(values.get("out-dir")));
        settings.check();
        return settings;
    }

    private void check() {
        require(mails >= 1, "mails must be at least 1");
        require(warmupMails >= 0, "warmup-mails must not be negative");
        require(enqueueBatchSize >= 1 && enqueueBatchSize <= 1000, "enqueue-batch-size must be 1..1000");
        require(httpConnections >= 1, "http-connections must be at least 1");
        require(claimers >= 1, "claimers must be at least 1");
        require(stallTimeoutMillis >= 1000, "stall-timeout-ms must be at least 1000");
        require(latencyMails >= 0, "latency-mails must not be negative");
        require(latencyPauseMillis >= 0, "latency-pause-ms must not be negative");
        require(rounds >= 1, "rounds must be at least 1");
        require(settleQuietMillis >= 0 && settleMaxMillis >= settleQuietMillis,
                "settle-quiet-ms must be 0 or more and settle-max-ms at least as large");
        require(settleSlack >= 0, "settle-slack must not be negative");
        require(wrkConnections >= 1, "wrk-connections must be at least 1");
        require(wrkSeconds >= 0, "wrk-seconds must not be negative");
    }

    private static boolean parseBoolean(String value) {
        return switch (value) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw new IllegalArgumentException("expected true or false, got: " + value);
        };
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    private static String names() {
        return String.join(", ", DEFAULTS.keySet().stream().sorted().toList());
    }
}
