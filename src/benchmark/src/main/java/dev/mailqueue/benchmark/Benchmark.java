package dev.mailqueue.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeoutException;
import java.util.Locale;

/**
 * The throughput benchmark's client, run by {@code src/benchmark/run.sh} against a running mailqueue
 * server on PostgreSQL whose mail session points at smtp-sink. In one run it
 * <ol>
 *   <li>warms up: enqueues and dispatches {@code warmup-mails}, not measured;</li>
 *   <li>enqueues N mails of 1 KB through {@code POST /api/mails/batch}, all due at one instant a little
 *       after the enqueue will have finished, so that enqueue and dispatch each have the machine to
 *       themselves: enqueue mails/s;</li>
 *   <li>waits until the queue has sent them and reads from their rows the dispatch rate: mails over
 *       the time from the first claim to the last {@code sent_at}; and the CPU time Liberty and
 *       PostgreSQL used meanwhile;</li>
 *   <li>enqueues {@code latency-mails} mails one at a time into an idle queue, each after the last was
 *       sent and a pause, and reads the enqueue to SMTP-accept latency, {@code sent_at - created_at},
 *       p50/p99;</li>
 *   <li>sends N mails with plain Jakarta Mail into the same sink over as many reused connections as
 *       the server has claimers (after a warm-up): the raw rate;</li>
 *   <li>prints the figures against the targets: dispatch at least 75 % of raw, enqueue at least
 *       20,000 mails/s.</li>
 * </ol>
 * Arguments are {@code --name=value}, see {@link Settings}. Exit status 0 when every mail was sent
 * exactly once, 1 otherwise (missing a target is reported, not an error).
 */
public final class Benchmark {

    /** Bulk enqueue target, mails per second. */
    static final double ENQUEUE_TARGET_PER_SECOND = 20_000;
    /** Dispatch target, as a fraction of the raw Jakarta Mail rate. */
    static final double DISPATCH_TARGET_OF_RAW = 0.75;
    /** Lower bound for the enqueue rate used to place the due instant (mails/s). */
    private static final double SAFE_ENQUEUE_RATE = 1_000;

    private final Settings settings;
    private final PrintStream out;

    private Benchmark(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
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
        SmtpSinkCounter sink = settings.sinkLog() == null ? null : new SmtpSinkCounter(settings.sinkLog());

        try (QueueDatabase db = new QueueDatabase(settings.jdbcUrl(), settings.dbUser(), settings.dbPassword())) {
            double warmupRate = SAFE_ENQUEUE_RATE;
            if (settings.warmupMails() > 0) {
                log("warm-up: %d mails through the queue", settings.warmupMails());
                BulkEnqueuer.Result warm = enqueuer.enqueue(runTag + "w", settings.warmupMails(),
                        settings.enqueueBatchSize(), null);
                warmupRate = Math.max(SAFE_ENQUEUE_RATE, warm.mailsPerSecond());
                log("warm-up: enqueued at %,.0f mails/s", warm.mailsPerSecond());
                db.awaitDispatched(settings.warmupMails(), settings.stallTimeoutMillis(), out);
            }

            // Due once the enqueue is surely over: twice the time the warm-up rate needs, plus 2 s.
            long sinkBefore = count(sink);
            long deferMillis = 2_000 + Math.round(2_000 * settings.mails() / warmupRate);
            Instant due = Instant.now().plusMillis(deferMillis).truncatedTo(ChronoUnit.MILLIS);
            log("enqueue: %d mails in batches of %d over %d HTTP connections, all due at %s (in %.1f s)",
                    settings.mails(), settings.enqueueBatchSize(), settings.httpConnections(), due, deferMillis / 1e3);
            CpuClock.Machine beforeEnqueue = CpuClock.machine();
            BulkEnqueuer.Result enqueued = enqueuer.enqueue(runTag, settings.mails(), settings.enqueueBatchSize(), due);
            CpuClock.Machine enqueueCpu = since(beforeEnqueue);
            log("enqueue: done in %.2f s; waiting for dispatch", enqueued.elapsedNanos() / 1e9);
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), due).toMillis()));
            double libertyCpu = settings.libertyPid() > 0 ? CpuClock.seconds(settings.libertyPid()) : -1;
            double postgresCpu = CpuClock.postgresSeconds();
            double sinkCpu = sinkSeconds();
            CpuClock.Machine machine = CpuClock.machine();
            db.awaitDispatched(settings.mails(), settings.stallTimeoutMillis() + deferMillis, out);
            Cpu cpu = new Cpu(libertyCpu < 0 ? -1 : CpuClock.seconds(settings.libertyPid()) - libertyCpu,
                    postgresCpu < 0 ? -1 : CpuClock.postgresSeconds() - postgresCpu,
                    sinkCpu < 0 ? -1 : sinkSeconds() - sinkCpu, since(machine));
            long sinkQueue = count(sink) - sinkBefore;
            QueueDatabase.DispatchFigures dispatched = db.figures(runTag);
            QueueDatabase.ClaimerTime claimerTime = db.claimerTime(runTag);

            QueueDatabase.DispatchFigures idle = null;
            if (settings.latencyMails() > 0) {
                log("latency: %d mails, each enqueued alone into an idle queue, %d ms after the last was sent",
                        settings.latencyMails(), settings.latencyPauseMillis());
                for (int i = 0; i < settings.latencyMails(); i++) {
                    Thread.sleep(settings.latencyPauseMillis());
                    long id = enqueuer.enqueueOne(runTag + "l");
                    long deadline = System.nanoTime() + settings.stallTimeoutMillis() * 1_000_000L;
                    while (!"SENT".equals(db.status(id))) {
                        if (System.nanoTime() > deadline) {
                            throw new TimeoutException("mail " + id + " of the latency phase was not sent");
                        }
                        Thread.sleep(5);
                    }
                }
                idle = db.figures(runTag + "l");
            }

            int rawWarmup = Math.min(settings.warmupMails(), settings.mails());
            if (rawWarmup > 0) {
                log("raw Jakarta Mail warm-up: %d mails", rawWarmup);
                raw.mailsPerSecond(rawWarmup);
            }
            log("raw Jakarta Mail: %d mails over %d connections", settings.mails(), settings.claimers());
            long sinkBeforeRaw = count(sink);
            double clientCpu = CpuClock.self();
            sinkCpu = sinkSeconds();
            machine = CpuClock.machine();
            double rawPerSecond = raw.mailsPerSecond(settings.mails());
            Cpu rawCpu = new Cpu(clientCpu < 0 ? -1 : CpuClock.self() - clientCpu, -1,
                    sinkCpu < 0 ? -1 : sinkSeconds() - sinkCpu, since(machine));
            long sinkRaw = count(sink) - sinkBeforeRaw;

            return summary(new Figures(enqueued, enqueueCpu, dispatched, claimerTime, cpu, rawCpu, idle, rawPerSecond,
                    sink == null ? -1 : sinkQueue, sink == null ? -1 : sinkRaw));
        }
    }

    private double sinkSeconds() {
        return settings.sinkPid() > 0 ? CpuClock.seconds(settings.sinkPid()) : -1;
    }

    private static CpuClock.Machine since(CpuClock.Machine before) {
        CpuClock.Machine now = CpuClock.machine();
        return before == null || now == null ? null : now.since(before);
    }

    /**
     * CPU used in one phase: while the queue dispatched the run, or while the raw baseline sent it.
     *
     * @param processSeconds  by the server's JVM (dispatch) or by this client (raw), or -1 when not measured
     * @param postgresSeconds by PostgreSQL's processes, or -1 when not measured
     * @param sinkSeconds     by smtp-sink, or -1 when not measured
     * @param machine         by every process of the machine, or null when not measured
     */
    private record Cpu(double processSeconds, double postgresSeconds, double sinkSeconds, CpuClock.Machine machine) {

        /** @return CPU of the whole machine per mail, ms, or -1 */
        double machineMillisPerMail(int mails) {
            return machine == null ? -1 : 1000 * machine.busySeconds() / mails;
        }
    }

    /** Everything the summary prints. */
    private record Figures(BulkEnqueuer.Result enqueued, CpuClock.Machine enqueueCpu,
                           QueueDatabase.DispatchFigures dispatched,
                           QueueDatabase.ClaimerTime claimerTime, Cpu cpu, Cpu rawCpu,
                           QueueDatabase.DispatchFigures idle,
                           double rawPerSecond, long sinkQueue, long sinkRaw) {
    }

    private boolean summary(Figures f) {
        int n = settings.mails();
        QueueDatabase.DispatchFigures d = f.dispatched();
        QueueDatabase.ClaimerTime t = f.claimerTime();
        double enqueueRate = f.enqueued().mailsPerSecond();
        double share = d.mailsPerSecond() / f.rawPerSecond();
        boolean complete = d.sent() == n && d.notSent() == 0 && d.attempts() == n && d.sentAttempts() == n
                && (f.sinkQueue() < 0 || f.sinkQueue() == n) && (f.sinkRaw() < 0 || f.sinkRaw() == n)
                && (f.idle() == null || f.idle().sent() == settings.latencyMails() && f.idle().notSent() == 0);

        out.println();
        out.println("=== mailqueue throughput benchmark ===");
        out.printf("mails               N = %,d of %,d B text (about 1.4 KB on the wire), after %,d warm-up mails%n",
                n, TestMail.BODY_BYTES, settings.warmupMails());
        out.printf("server              claimers %d, batch-size %d, dispatch interval %d ms; SMTP %s:%d%n",
                settings.claimers(), settings.dispatchBatchSize(), settings.dispatchIntervalMillis(),
                settings.smtpHost(), settings.smtpPort());
        out.printf("enqueue             %,10.0f mails/s   %,d mails in %.2f s, POST /api/mails/batch of %d over %d"
                        + " connections (request p50 %.0f ms, max %.0f ms)%n",
                enqueueRate, n, f.enqueued().elapsedNanos() / 1e9, settings.enqueueBatchSize(),
                settings.httpConnections(), f.enqueued().requestMillisP50(), f.enqueued().requestMillisMax());
        out.printf("dispatch            %,10.0f mails/s   %,d mails, all due at one instant, the last sent %.2f s"
                        + " after the first claim (p10..p90 of sent_at: %,.0f mails/s; %d claimer executions)%n",
                d.mailsPerSecond(), d.sent(), d.dispatchSeconds(), d.steadyMailsPerSecond(), d.claimerExecutions());
        out.printf("claimer time        %.0f %% in attempts (%.2f ms a mail: compose, SMTP, the mark's commit), %.2f ms"
                        + " a mail between attempts (claim, journal, batch container)%n",
                100 * t.attemptShare(), t.attemptMillisPerMail(), t.betweenMillisPerMail());
        out.printf("raw Jakarta Mail    %,10.0f mails/s   %,d mails over %d reused connections into the same sink%n",
                f.rawPerSecond(), n, settings.claimers());
        if (f.cpu().processSeconds() >= 0 || f.cpu().postgresSeconds() >= 0) {
            out.printf("CPU per mail        Liberty %.3f ms, PostgreSQL %.3f ms   (CPU time of the dispatch phase / N)%n",
                    1000 * f.cpu().processSeconds() / n, 1000 * f.cpu().postgresSeconds() / n);
        }
        cpuBudget(f, n);
        if (f.idle() != null) {
            QueueDatabase.DispatchFigures s = f.idle();
            out.printf("idle latency        p50 %,.0f ms, p99 %,.0f ms, max %,.0f ms   enqueue -> SMTP 250 (sent_at -"
                            + " created_at) of %,d mails, each enqueued alone into an idle queue%n",
                    s.latencyMillisP50(), s.latencyMillisP99(), s.latencyMillisMax(), s.sent());
            out.printf("target latency      p50 %,.0f ms <= 100, p99 %,.0f ms <= 500: %s%n", s.latencyMillisP50(),
                    s.latencyMillisP99(), verdict(s.latencyMillisP50() <= 100 && s.latencyMillisP99() <= 500));
        }
        out.printf("target enqueue      %,.0f mails/s >= %,.0f: %s%n", enqueueRate, ENQUEUE_TARGET_PER_SECOND,
                verdict(enqueueRate >= ENQUEUE_TARGET_PER_SECOND));
        out.printf("target dispatch     %.0f %% of raw >= %.0f %%: %s%n", 100 * share, 100 * DISPATCH_TARGET_OF_RAW,
                verdict(share >= DISPATCH_TARGET_OF_RAW));
        out.printf("check               %,d SENT, %,d not, %,d attempts (%,d sent); smtp-sink received %s from the"
                        + " queue, %s raw: %s%n",
                d.sent(), d.notSent(), d.attempts(), d.sentAttempts(), sinkText(f.sinkQueue()), sinkText(f.sinkRaw()),
                complete ? "OK" : "MISMATCH");
        return complete;
    }

    /**
     * The machine's CPU per mail in each phase, and the ceiling it sets: when a phase keeps every CPU
     * busy its rate is at most CPUs / CPU-per-mail, so dispatch can reach at most (raw's CPU per mail) /
     * (dispatch's CPU per mail) of the raw rate on this machine, however its time is spent otherwise.
     */
    private void cpuBudget(Figures f, int n) {
        Cpu d = f.cpu();
        Cpu r = f.rawCpu();
        if (d.machine() == null || r.machine() == null) {
            return;
        }
        int cpus = Runtime.getRuntime().availableProcessors();
        if (f.enqueueCpu() != null) {
            double enqueueMillis = 1000 * f.enqueueCpu().busySeconds() / n;
            out.printf("CPU ceiling enqueue %.3f ms of machine CPU a mail enqueued (%.0f %% of %d CPUs busy): every"
                            + " CPU busy, <= %,.0f mails/s%n",
                    enqueueMillis, 100 * f.enqueueCpu().busyShare(), cpus, 1000 * cpus / enqueueMillis);
        }
        out.printf("machine CPU/mail    dispatch %.3f ms (smtp-sink %.3f ms; %.0f %% of %d CPUs busy, %.0f %% stolen),"
                        + " raw %.3f ms (client %.3f, smtp-sink %.3f ms; %.0f %% busy, %.0f %% stolen)%n",
                d.machineMillisPerMail(n), 1000 * d.sinkSeconds() / n, 100 * d.machine().busyShare(), cpus,
                100 * d.machine().stealShare(), r.machineMillisPerMail(n), 1000 * r.processSeconds() / n,
                1000 * r.sinkSeconds() / n, 100 * r.machine().busyShare(), 100 * r.machine().stealShare());
        double dispatchCeiling = 1000 * cpus / d.machineMillisPerMail(n);
        double rawCeiling = 1000 * cpus / r.machineMillisPerMail(n);
        out.printf("CPU ceiling         every CPU busy: dispatch <= %,.0f mails/s, raw <= %,.0f mails/s; dispatch/raw"
                        + " <= %.0f %% at this CPU per mail%n",
                dispatchCeiling, rawCeiling, 100 * r.machineMillisPerMail(n) / d.machineMillisPerMail(n));
    }

    private static String sinkText(long count) {
        return count < 0 ? "(not counted)" : String.format("%,d", count);
    }

    private static String verdict(boolean met) {
        return met ? "met" : "MISSED";
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
