package dev.mailqueue.benchmark;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.cert.X509Certificate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;

/**
 * The history benchmark's client, run by {@code src/benchmark/history.sh} once on the run server's database as it
 * is (phase {@code empty}) and once after the script filled it with a history ({@code full}); the script sets the
 * two side by side. One phase, on a server whose mail session points at smtp-sink:
 * <ol>
 *   <li>a warm-up of {@code --warmup-mails} through the queue (bulk enqueue and dispatch), not measured;</li>
 *   <li>reads, one at a time, each {@code --reads} times after 5 unmeasured: {@code GET /api/admin/statistics}, the
 *       console's first page ({@code GET /api/admin/mails?size=20}), the first page of FAILED mails, one mail by id
 *       as its sender ({@code GET /api/mails/{id}}, ids drawn at random from the mails present), and
 *       {@code --slow-reads} times a search by recipient; then 10 scrapes of the application's metrics 2.1 s apart
 *       (the depth gauge is read from the database at most every 2 s): p50, p99 and the longest, ms;</li>
 *   <li>{@code --mails} mails enqueued through {@code POST /api/mails/batch} (1,000 a request), due together a little
 *       later, then sent: CPU a mail of the machine, Liberty and PostgreSQL for each ({@link CpuClock}), and the
 *       dispatch's mails per second; it waits on smtp-sink's count (not the database's) and then checks that the
 *       kept count of SENT mails rose by as many.</li>
 * </ol>
 * Figures are printed and appended to {@code --results} as {@code phase.name=value} lines.
 */
public final class HistoryBenchmark {

    private static final String ADMIN = "Basic " + Base64.getEncoder().encodeToString(
            "admin:admin".getBytes(StandardCharsets.UTF_8));
    private static final String SENDER = "Basic " + Base64.getEncoder().encodeToString(
            "sender:sender".getBytes(StandardCharsets.UTF_8));
    private static final int UNMEASURED = 5;

    private final Map<String, String> args;
    private final PrintStream out = System.out;
    private final Map<String, String> results = new LinkedHashMap<>();
    private final HttpClient http;
    private final String phase;
    private final String base;

    private HistoryBenchmark(Map<String, String> args) throws Exception {
        this.args = args;
        this.phase = arg("phase");
        this.base = arg("base-url");
        SSLContext trustAll = SSLContext.getInstance("TLS");
        trustAll.init(null, new TrustManager[]{new X509TrustManager() { // the run server's own certificate, localhost
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String type) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String type) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trustAll)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * @param args {@code --name=value}: phase, base-url, https-base-url, jdbc-url, db-user, reads, slow-reads, mails,
     *             warmup-mails, liberty-pid, sink-pid, sink-log, results
     * @throws Exception when a phase fails
     */
    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        Map<String, String> parsed = new HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, got " + a);
            }
            parsed.put(a.substring(2, eq), a.substring(eq + 1));
        }
        new HistoryBenchmark(parsed).run();
    }

    private String arg(String name) {
        String value = args.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is missing");
        }
        return value;
    }

    private int number(String name) {
        return Integer.parseInt(arg(name));
    }

    private void run() throws Exception {
        BulkEnqueuer enqueuer = new BulkEnqueuer(base + "/api/mails", 4);
        SmtpSinkCounter sink = new SmtpSinkCounter(Path.of(arg("sink-log")));
        try (Connection db = PgCounters.connect(arg("jdbc-url"), arg("db-user"), "")) {
            int warmup = number("warmup-mails");
            log("warm-up: %d mails through the queue", warmup);
            dispatch(enqueuer, sink, db, "hw" + phase, warmup, false);

            long[] range = idRange(db);
            int reads = number("reads");
            read("statistics", reads, () -> get(base, "/api/admin/statistics", ADMIN));
            read("search_first_page", reads, () -> get(base, "/api/admin/mails?size=20", ADMIN));
            // as the console's link from the FAILED count asks for it (newest finished first, the log's status index)
            read("search_failed", reads, () -> get(base, "/api/admin/mails?status=FAILED&size=20&sort=finishedAt,desc", ADMIN));
            read("mail_by_id", reads, () -> get(base, "/api/mails/" + someMail(db, range), SENDER));
            read("search_recipient", number("slow-reads"), () -> get(base, "/api/admin/mails?recipient=user"
                    + ThreadLocalRandom.current().nextInt(1_000_000) + "@example.com&size=20", ADMIN));
            scrapes();

            dispatch(enqueuer, sink, db, "hm" + phase, number("mails"), true);
        }
        StringBuilder lines = new StringBuilder();
        results.forEach((name, value) -> lines.append(phase).append('.').append(name).append('=').append(value)
                .append('\n'));
        Files.writeString(Path.of(arg("results")), lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** Enqueues {@code n} mails due together and waits until smtp-sink has them all; measures when told. */
    private void dispatch(BulkEnqueuer enqueuer, SmtpSinkCounter sink, Connection db, String tag, int n,
                          boolean measure) throws Exception {
        long sentBefore = keptSent(db);
        long sinkBefore = sink.messages();
        Instant due = Instant.now().plusMillis(5_000 + 3L * n);
        CpuClock.Reading start = cpu();
        BulkEnqueuer.Result enqueued = enqueuer.enqueue(tag, n, 1000, due);
        CpuClock.Reading enqueueCpu = cpu().since(start);
        if (Instant.now().isAfter(due)) {
            log("WARNING: the enqueue ended after the due instant: enqueue and dispatch overlap");
        }
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), due).toMillis()));
        start = cpu();
        long began = System.nanoTime();
        long lastCount = sinkBefore;
        long lastChange = began;
        while (sink.messages() < sinkBefore + n) {
            long now = System.nanoTime();
            long count = sink.messages();
            if (count > lastCount) {
                lastCount = count;
                lastChange = now;
            } else if (now - lastChange > 120_000_000_000L) {
                throw new TimeoutException("dispatch stalled at " + (count - sinkBefore) + " of " + n + " mails");
            }
            Thread.sleep(20);
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        CpuClock.Reading dispatchCpu = cpu().since(start);
        Thread.sleep(2_000); // the last outcomes' commits
        long sent = keptSent(db) - sentBefore;
        long received = sink.messages() - sinkBefore;
        log("%s: %d mails enqueued at %,.0f/s, sent in %.1f s; smtp-sink received %d, SENT rose by %d", tag, n,
                enqueued.mailsPerSecond(), seconds, received, sent);
        if (received != n || sent != n) {
            throw new IllegalStateException("expected " + n + " mails sent once, smtp-sink has " + received
                    + " and the SENT count rose by " + sent);
        }
        if (measure) {
            put("enqueue_machine_ms", enqueueCpu.machineMillis(n));
            put("enqueue_liberty_ms", CpuClock.Reading.millis(enqueueCpu.liberty(), n));
            put("enqueue_postgres_ms", CpuClock.Reading.millis(enqueueCpu.postgres(), n));
            put("dispatch_machine_ms", dispatchCpu.machineMillis(n));
            put("dispatch_liberty_ms", CpuClock.Reading.millis(dispatchCpu.liberty(), n));
            put("dispatch_postgres_ms", CpuClock.Reading.millis(dispatchCpu.postgres(), n));
            put("dispatch_mails_per_s", n / seconds);
        }
    }

    /** One GET, timed; throws unless answered 200. */
    private interface Call {
        long run() throws Exception;
    }

    /**
     * Times {@code samples} calls after up to {@value #UNMEASURED} unmeasured ones. A call answered with an error (e.g.
     * a search that outlived the server's transaction timeout) is counted as failed and left out of the times.
     */
    private void read(String name, int samples, Call call) throws Exception {
        for (int i = 0; i < Math.min(UNMEASURED, samples); i++) {
            try {
                call.run();
            } catch (IOException e) {
                log("%s (unmeasured): %s", name, e.getMessage());
            }
        }
        long[] nanos = new long[samples];
        int answered = 0;
        for (int i = 0; i < samples; i++) {
            try {
                nanos[answered] = call.run();
                answered++;
            } catch (IOException e) {
                log("%s: %s", name, e.getMessage());
            }
        }
        if (answered < samples) {
            put(name + "_failed", samples - answered);
        }
        report(name, Arrays.copyOf(nanos, answered));
    }

    private void scrapes() throws Exception {
        String https = arg("https-base-url");
        get(https, "/metrics?scope=application", ADMIN);
        long[] nanos = new long[10];
        for (int i = 0; i < nanos.length; i++) {
            Thread.sleep(2_100); // past the gauge's 2 s: each scrape reads the database
            nanos[i] = get(https, "/metrics?scope=application", ADMIN);
        }
        report("metrics_scrape", nanos);
    }

    private void report(String name, long[] nanos) {
        if (nanos.length == 0) {
            return;
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double p50 = sorted[(int) Math.ceil(0.50 * sorted.length) - 1] / 1e6;
        double p99 = sorted[(int) Math.ceil(0.99 * sorted.length) - 1] / 1e6;
        double max = sorted[sorted.length - 1] / 1e6;
        log("%-18s %4d calls: p50 %9.1f ms, p99 %9.1f ms, max %9.1f ms", name, nanos.length, p50, p99, max);
        put(name + "_p50_ms", p50);
        put(name + "_p99_ms", p99);
        put(name + "_max_ms", max);
    }

    private long get(String root, String path, String authorization) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(root + path)).timeout(Duration.ofMinutes(10))
                .header("Authorization", authorization).header("Accept", "application/json, text/plain").GET().build();
        long start = System.nanoTime();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        long nanos = System.nanoTime() - start;
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + ": " + response.statusCode() + " " + response.body());
        }
        return nanos;
    }

    /** @return the lowest and highest mail id present */
    private static long[] idRange(Connection db) throws SQLException {
        try (PreparedStatement s = db.prepareStatement("SELECT min(id), max(id) FROM mail_message");
             ResultSet r = s.executeQuery()) {
            r.next();
            return new long[]{r.getLong(1), r.getLong(2)};
        }
    }

    /** @return a mail present, the first at or after a random id of the range (the primary key finds it) */
    private static long someMail(Connection db, long[] range) throws SQLException {
        long from = range[0] + (long) (ThreadLocalRandom.current().nextDouble() * (range[1] - range[0]));
        try (PreparedStatement s = db.prepareStatement("SELECT id FROM mail_message WHERE id >= ? AND enqueued_by ="
                + " 'sender' ORDER BY id LIMIT 1")) {
            s.setLong(1, from);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getLong(1) : range[0];
            }
        }
    }

    /** @return the SENT count the queue keeps (V17), summed over its buckets */
    private static long keptSent(Connection db) throws SQLException {
        try (PreparedStatement s = db.prepareStatement("SELECT sum(mails) FROM mail_status_count WHERE status = 'SENT'");
             ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }

    private CpuClock.Reading cpu() {
        return CpuClock.Reading.now(Long.parseLong(arg("liberty-pid")), Long.parseLong(arg("sink-pid")));
    }

    private void put(String name, double value) {
        results.put(name, String.format("%.4f", value));
    }

    private void log(String format, Object... values) {
        out.printf("history: %s %s%n", Instant.now().toString().substring(11, 23), String.format(format, values));
    }
}
