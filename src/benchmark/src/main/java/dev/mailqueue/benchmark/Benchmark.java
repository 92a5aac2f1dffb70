package dev.mailqueue.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * The throughput benchmark's client, run by {@code src/benchmark/run.sh} against a running mailqueue
 * server on PostgreSQL whose mail session points at smtp-sink. It warms up once ({@code warmup-mails}
 * through the queue, not measured), then runs the measurement {@code rounds} times in a row on the same
 * server and prints the rounds side by side, so that the spread shows. Each round:
 * <ol>
 *   <li>enqueues N mails of 1 KB through {@code POST /api/mails/batch}, all due at one instant a little
 *       after the enqueue and the reading of the database's counters will have finished, so that enqueue
 *       and dispatch each have the machine to themselves: enqueue mails/s;</li>
 *   <li>waits until the queue has sent them and reads from their rows the dispatch rate: mails over
 *       the time from the first claim to the last {@code sent_at};</li>
 *   <li>enqueues {@code latency-mails} mails one at a time into an idle queue, each after the last was
 *       sent and a pause, and reads the enqueue to SMTP-accept latency, {@code sent_at - created_at},
 *       p50/p99;</li>
 *   <li>sends N mails with plain Jakarta Mail into the same sink over as many reused connections as
 *       the server has claimers (after a warm-up, in the first round): the raw rate;</li>
 *   <li>with wrk: single {@code POST /api/mails} of one mail due the next day, then the unauthenticated
 *       {@code GET /health/live} (then deletes the single POSTs' mails, so the next round's claims do not
 *       step over them).</li>
 * </ol>
 * For the bulk enqueue, the dispatch and the single POSTs it measures the CPU time of the machine, of
 * Liberty and of PostgreSQL ({@link CpuClock}), and what PostgreSQL wrote and executed
 * ({@link PgCounters}: WAL, tuple writes of the queue's schema, the application's statements), per mail
 * or request; and prints the targets with a verdict per round ({@link Report}).
 * Arguments are {@code --name=value}, see {@link Settings}. Exit status 0 when every mail was sent
 * exactly once, 1 otherwise (missing a target is reported, not an error).
 */
public final class Benchmark {

    /** Lower bound for the enqueue rate used to place the due instant (mails/s). */
    private static final double SAFE_ENQUEUE_RATE = 1_000;
    /** What a CHECKPOINT and the last reads may take between the enqueue's settled counters and the due instant. */
    private static final long CHECKPOINT_ALLOWANCE_MILLIS = 5_000;

    private final Settings settings;
    private final PrintStream out;
    private final SmtpSinkCounter sink;

    private Benchmark(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
        this.sink = settings.sinkLog() == null ? null : new SmtpSinkCounter(settings.sinkLog());
    }

    /**
     * @param args {@code --name=value} settings
     * @throws Exception when a phase fails; the benchmark then prints no figures
     */
    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new Benchmark(settings, System.out).run() ? 0 : 1);
    }

    private boolean run() throws Exception {
        String runTag = "bench" + Long.toString(System.currentTimeMillis(), 36);
        BulkEnqueuer enqueuer = new BulkEnqueuer(settings.apiUrl(), settings.httpConnections());
        RawSmtpBaseline raw = new RawSmtpBaseline(settings.smtpHost(), settings.smtpPort(), settings.claimers());
        WrkLoad wrk = settings.wrkSeconds() > 0
                ? new WrkLoad(settings.wrkConnections(), settings.wrkSeconds(), settings.outDir()) : null;

        try (QueueDatabase db = new QueueDatabase(settings.jdbcUrl(), settings.dbUser(), settings.dbPassword());
             PgCounters counters = new PgCounters(settings.jdbcUrl(), settings.dbUser(), settings.dbPassword(),
                     settings.dbSchema(), settings.appDbUser())) {
            if (counters.statementsUnavailable() != null) {
                log("statements: n/a (%s)", counters.statementsUnavailable());
            }
            double warmupRate = SAFE_ENQUEUE_RATE;
            if (settings.warmupMails() > 0) {
                log("warm-up: %d mails through the queue", settings.warmupMails());
                BulkEnqueuer.Result warm = enqueuer.enqueue(runTag + "w", settings.warmupMails(),
                        settings.enqueueBatchSize(), null);
                warmupRate = Math.max(SAFE_ENQUEUE_RATE, warm.mailsPerSecond());
                log("warm-up: enqueued at %,.0f mails/s", warm.mailsPerSecond());
                db.awaitDispatched(settings.warmupMails(), settings.stallTimeoutMillis(), out);
            }
            List<Round> rounds = new ArrayList<>();
            for (int r = 1; r <= settings.rounds(); r++) {
                Round round = round(r, runTag + "r" + r, warmupRate, enqueuer, raw, wrk, db, counters);
                rounds.add(round);
                warmupRate = Math.max(warmupRate, round.enqueued().mailsPerSecond()); // the next round's due instant
            }
            return new Report(settings, counters, out).print(rounds);
        }
    }

    private Round round(int number, String tag, double enqueueRate, BulkEnqueuer enqueuer, RawSmtpBaseline raw,
                        WrkLoad wrk, QueueDatabase db, PgCounters counters) throws Exception {
        int n = settings.mails();
        log("round %d of %d", number, settings.rounds());
        PgCounters.Snapshot beforeEnqueue = beforePhase(counters, "enqueue");

        // Due once the enqueue is surely over (twice the time the best rate so far needs, plus 2 s) and its
        // counters have settled (PostgreSQL's 10 s late flush and the window) and been read.
        long sinkBefore = count(sink);
        long deferMillis = 2_000 + Math.round(2_000 * n / enqueueRate) + settings.settleQuietMillis() + 15_000
                + CHECKPOINT_ALLOWANCE_MILLIS;
        Instant due = Instant.now().plusMillis(deferMillis).truncatedTo(ChronoUnit.MILLIS);
        log("enqueue: %d mails in batches of %d over %d HTTP connections, all due at %s (in %.1f s)",
                n, settings.enqueueBatchSize(), settings.httpConnections(), due, deferMillis / 1e3);
        CpuClock.Reading cpu = cpu();
        BulkEnqueuer.Result enqueued = enqueuer.enqueue(tag, n, settings.enqueueBatchSize(), due);
        CpuClock.Reading enqueueCpu = cpu().since(cpu);
        log("enqueue: done in %.2f s", enqueued.elapsedNanos() / 1e9);
        PgCounters.Snapshot afterEnqueue = settle(counters, "after the enqueue",
                due.minusMillis(CHECKPOINT_ALLOWANCE_MILLIS));
        // The reading before dispatch as close to the due instant as is safe, so the idle wait adds little:
        // the checkpoint that writes the enqueue's pages first, then a short one right before.
        if (settings.checkpoint()) {
            counters.checkpoint(afterEnqueue);
        }
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), due).toMillis() - 2_000));
        PgCounters.Snapshot beforeDispatch = counters.again(afterEnqueue, settings.checkpoint());
        boolean early = !Instant.now().isBefore(due);
        if (early) {
            log("WARNING: the counters before dispatch were read after the due instant: enqueue and dispatch figures"
                    + " overlap (fewer --mails, or a longer wait: see deferMillis)");
        }
        log("dispatch: at the due instant; waiting for the queue to send them");
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), due).toMillis()));
        cpu = cpu();
        db.awaitDispatched(n, settings.stallTimeoutMillis() + deferMillis, out);
        CpuClock.Reading dispatchCpu = cpu().since(cpu);
        PgCounters.Snapshot afterDispatch = settle(counters, "after dispatch", maxSettle());
        long sinkQueue = count(sink) - sinkBefore;
        QueueDatabase.DispatchFigures dispatched = db.figures(tag);
        QueueDatabase.ClaimerTime claimerTime = db.claimerTime(tag);

        QueueDatabase.DispatchFigures idle = null;
        if (settings.latencyMails() > 0) {
            log("latency: %d mails, each enqueued alone into an idle queue, %d ms after the last was sent",
                    settings.latencyMails(), settings.latencyPauseMillis());
            for (int i = 0; i < settings.latencyMails(); i++) {
                Thread.sleep(settings.latencyPauseMillis());
                long id = enqueuer.enqueueOne(tag + "l");
                long deadline = System.nanoTime() + settings.stallTimeoutMillis() * 1_000_000L;
                while (!"SENT".equals(db.status(id))) {
                    if (System.nanoTime() > deadline) {
                        throw new TimeoutException("mail " + id + " of the latency phase was not sent");
                    }
                    Thread.sleep(5);
                }
            }
            idle = db.figures(tag + "l");
        }

        int rawWarmup = number == 1 ? Math.min(settings.warmupMails(), n) : 0;
        if (rawWarmup > 0) {
            log("raw Jakarta Mail warm-up: %d mails", rawWarmup);
            raw.mailsPerSecond(rawWarmup);
        }
        log("raw Jakarta Mail: %d mails over %d connections", n, settings.claimers());
        long sinkBeforeRaw = count(sink);
        cpu = cpu();
        double rawPerSecond = raw.mailsPerSecond(n);
        CpuClock.Reading rawCpu = cpu().since(cpu);
        long sinkRaw = count(sink) - sinkBeforeRaw;

        // The server has been idle since the latency phase: what it writes and executes anyway, for scale.
        PgCounters.Snapshot idleStart = counters.read();
        PgCounters.Snapshot idleEnd = settle(counters, "while the server is idle", maxSettle());
        PgCounters.Delta idleDb = PgCounters.Delta.between(idleStart, idleEnd);

        WrkLoad.Result post = null;
        WrkLoad.Result get = null;
        CpuClock.Reading postCpu = null;
        CpuClock.Reading getCpu = null;
        PgCounters.Delta postDb = null;
        long posted = -1;
        if (wrk != null) {
            PgCounters.Snapshot beforePost = settings.checkpoint() ? counters.checkpoint(idleEnd) : idleEnd;
            log("single POST /api/mails: wrk -c %d -d %ds", settings.wrkConnections(), settings.wrkSeconds());
            cpu = cpu();
            post = wrk.postMails(settings.apiUrl(), tag + "p", "wrk-post-r" + number);
            postCpu = cpu().since(cpu);
            postDb = PgCounters.Delta.between(beforePost, settle(counters, "after the single POSTs", maxSettle()));
            posted = db.count(tag + "p");
            log("unauthenticated GET /health/live: wrk -c %d -d %ds", settings.wrkConnections(), settings.wrkSeconds());
            cpu = cpu();
            get = wrk.get(URI.create(settings.apiUrl()).resolve("/health/live").toString(), "wrk-get-r" + number);
            getCpu = cpu().since(cpu);
            log("deleting the %,d single POSTs' mails (due tomorrow) so the next claims do not step over them",
                    db.deleteQueued(tag + "p"));
        }
        return new Round(number, enqueued, enqueueCpu, PgCounters.Delta.between(beforeEnqueue, afterEnqueue),
                dispatched, claimerTime, dispatchCpu, PgCounters.Delta.between(beforeDispatch, afterDispatch), early,
                idle, rawPerSecond, rawCpu, sink == null ? -1 : sinkQueue, sink == null ? -1 : sinkRaw, idleDb, post,
                postCpu, postDb, posted, get, getCpu);
    }

    /** Settles the counters and, when so set, runs a CHECKPOINT: the reading right before a phase. */
    private PgCounters.Snapshot beforePhase(PgCounters counters, String phase) throws Exception {
        PgCounters.Snapshot settled = settle(counters, "before the " + phase, maxSettle());
        return settings.checkpoint() ? counters.checkpoint(settled) : settled;
    }

    private PgCounters.Snapshot settle(PgCounters counters, String when, Instant deadline) throws Exception {
        long start = System.nanoTime();
        PgCounters.Snapshot s = counters.settle(Duration.ofMillis(settings.settleQuietMillis()), settings.settleSlack(),
                deadline);
        log("database counters %s: %s after %.1f s", when, s.settled() ? "read" : "read STILL MOVING",
                (System.nanoTime() - start) / 1e9);
        return s;
    }

    private Instant maxSettle() {
        return Instant.now().plusMillis(settings.settleMaxMillis());
    }

    private CpuClock.Reading cpu() {
        return CpuClock.Reading.now(settings.libertyPid(), settings.sinkPid());
    }

    private static long count(SmtpSinkCounter sink) throws IOException {
        return sink == null ? 0 : sink.messages();
    }

    private void log(String format, Object... args) {
        Object[] all = new Object[args.length + 1];
        all[0] = LocalTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS);
        System.arraycopy(args, 0, all, 1, args.length);
        out.printf("benchmark: %s " + format + "%n", all);
    }
}
