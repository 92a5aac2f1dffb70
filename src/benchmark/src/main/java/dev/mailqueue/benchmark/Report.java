package dev.mailqueue.benchmark;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Prints the rounds side by side: the figures, the targets with a verdict per round, whether every mail
 * was sent exactly once, then per round where the database writes and statements went.
 */
final class Report {

    /** Dispatch: the machine's CPU per mail at most this many times the raw baseline's, same round. */
    static final double DISPATCH_CPU_OF_RAW = 2;
    /** PostgreSQL per dispatched mail: tuple writes. */
    static final double DISPATCH_TUPLE_WRITES = 3;
    /** PostgreSQL per dispatched mail: WAL bytes (1 KB). */
    static final double DISPATCH_WAL_BYTES = 1024;
    /** PostgreSQL per dispatched mail: CPU milliseconds. */
    static final double DISPATCH_POSTGRES_MILLIS = 0.15;
    /** Bulk enqueue: the machine's CPU milliseconds per mail. */
    static final double ENQUEUE_MACHINE_MILLIS = 0.12;
    /** Single POST /api/mails: the machine's CPU milliseconds per request. */
    static final double POST_MACHINE_MILLIS = 0.7;
    /** Idle latency, enqueue to SMTP 250, milliseconds. */
    static final double LATENCY_P50_MILLIS = 100;
    static final double LATENCY_P99_MILLIS = 500;

    private static final int LABEL = 40;
    private static final int COLUMN = 36;
    private static final int TOP_STATEMENTS = 5;
    private static final int QUERY_CHARS = 110;

    private final Settings settings;
    private final PgCounters counters;
    private final PrintStream out;
    private final int cpus = Runtime.getRuntime().availableProcessors();

    Report(Settings settings, PgCounters counters, PrintStream out) {
        this.settings = settings;
        this.counters = counters;
        this.out = out;
    }

    /** @return true when every round sent every mail exactly once */
    boolean print(List<Round> rounds) {
        int n = settings.mails();
        out.println();
        out.println("=== mailqueue throughput benchmark ===");
        out.printf("mails               N = %,d of %,d B text (about 1.4 KB on the wire) per round; %d round%s in a row on"
                        + " one server start, after %,d warm-up mails%n", n, TestMail.BODY_BYTES, rounds.size(),
                rounds.size() == 1 ? "" : "s", settings.warmupMails());
        out.printf("server              claimers %d, batch-size %d, dispatch interval %d ms; SMTP %s:%d%n",
                settings.claimers(), settings.dispatchBatchSize(), settings.dispatchIntervalMillis(),
                settings.smtpHost(), settings.smtpPort());
        out.printf("CPU                 from /proc: machine = all %d CPUs busy (user, nice, system, irq, softirq), Liberty ="
                + " its JVM, PostgreSQL = every postgres process; over each phase's timed part only%n", cpus);
        out.printf("database            WAL = pg_current_wal_lsn() difference (the whole cluster: other databases and"
                + " background writes count too); tuple writes = n_tup_ins + n_tup_upd + n_tup_del of schema %s's"
                + " tables (HOT = n_tup_hot_upd / n_tup_upd)%n", counters.schema());
        out.printf("                    read right before and right after each phase, outside its timed part, once the"
                        + " tuple writes over the last %.0f s were <= %s a second (PostgreSQL publishes an idle backend's"
                        + " counts 10 s late; the idle server writes about 1 a second); CHECKPOINT right before each phase: %s%n",
                settings.settleQuietMillis() / 1e3, new java.text.DecimalFormat("0.##").format(settings.settleSlack()),
                settings.checkpoint()
                        ? "yes (full-page writes count as in steady use)"
                        : "no (pages already logged since the last checkpoint cost no full-page image)");
        if (counters.statementsUnavailable() == null) {
            out.printf("statements          pg_stat_statements calls of user %s in this database, top-level; the"
                    + " benchmark's own sessions are not tracked (pg_stat_statements.track=none); PgJDBC's BEGIN and COMMIT"
                    + " are mostly not counted (PostgreSQL 15)%n", counters.applicationUser());
        } else {
            out.printf("statements          n/a (%s)%n", counters.statementsUnavailable());
        }
        out.println();

        header(rounds);
        section("bulk enqueue: POST /api/mails/batch of %d over %d connections", settings.enqueueBatchSize(),
                settings.httpConnections());
        row(rounds, "mails/s", r -> f0(r.enqueued().mailsPerSecond()));
        row(rounds, "request p50 / max", r -> String.format("%.0f / %.0f ms", r.enqueued().requestMillisP50(),
                r.enqueued().requestMillisMax()));
        machineRow(rounds, "a mail", Round::enqueueCpu, n);
        processRows(rounds, "a mail", Round::enqueueCpu, n);
        databaseRows(rounds, "a mail", Round::enqueueDb, n);

        section("dispatch: all N due at one instant; rate from the first claim to the last sent_at");
        row(rounds, "mails/s (p10..p90 of sent_at)", r -> f0(r.dispatched().mailsPerSecond()) + " ("
                + f0(r.dispatched().steadyMailsPerSecond()) + ")");
        row(rounds, "first claim to last sent; claimers", r -> String.format("%.2f s; %d",
                r.dispatched().dispatchSeconds(), r.dispatched().claimerExecutions()));
        row(rounds, "claimers in attempts; ms a mail", r -> String.format("%.0f %%: %.2f in, %.2f between",
                100 * r.claimerTime().attemptShare(), r.claimerTime().attemptMillisPerMail(),
                r.claimerTime().betweenMillisPerMail()));
        row(rounds, "machine CPU a mail", r -> ms(r.dispatchCpu().machineMillis(n)) + String.format(" (sink %.3f; %s)",
                CpuClock.Reading.millis(r.dispatchCpu().sink(), n), busy(r.dispatchCpu())));
        processRows(rounds, "a mail", Round::dispatchCpu, n);
        databaseRows(rounds, "a mail", Round::dispatchDb, n);

        if (settings.latencyMails() > 0) {
            section("idle latency: enqueue -> SMTP 250 (sent_at - created_at) of %d mails, each alone in an idle queue",
                    settings.latencyMails());
            row(rounds, "p50 / p99 / max", r -> String.format("%,.0f / %,.0f / %,.0f ms", r.idle().latencyMillisP50(),
                    r.idle().latencyMillisP99(), r.idle().latencyMillisMax()));
        }

        section("raw Jakarta Mail: the same mails into the same sink over %d reused connections", settings.claimers());
        row(rounds, "mails/s", r -> f0(r.rawPerSecond()));
        row(rounds, "machine CPU a mail", r -> ms(r.rawCpu().machineMillis(n)) + " (" + busy(r.rawCpu()) + ")");
        row(rounds, "of which client, smtp-sink", r -> String.format("%.3f, %.3f ms",
                CpuClock.Reading.millis(r.rawCpu().client(), n), CpuClock.Reading.millis(r.rawCpu().sink(), n)));

        section("CPU ceilings: the rate with every CPU busy at this CPU per mail");
        row(rounds, "enqueue <=", r -> f0(1000 * cpus / r.enqueueCpu().machineMillis(n)) + " mails/s");
        row(rounds, "dispatch <=, raw <=", r -> f0(1000 * cpus / r.dispatchCpu().machineMillis(n)) + ", "
                + f0(1000 * cpus / r.rawCpu().machineMillis(n)) + " mails/s");
        row(rounds, "dispatch/raw <=", r -> String.format("%.0f %%",
                100 * r.rawCpu().machineMillis(n) / r.dispatchCpu().machineMillis(n)));

        boolean wrk = rounds.get(0).post() != null;
        if (wrk) {
            section("single POST /api/mails: one 1 KB mail due tomorrow, sender:sender, wrk -c %d, %d s (wrk's CPU in machine)",
                    settings.wrkConnections(), settings.wrkSeconds());
            row(rounds, "requests/s (p50, p99)", r -> String.format("%s (%s, %s)", f0(r.post().perSecond()),
                    r.post().p50(), r.post().p99()));
            row(rounds, "not 202; mails queued", r -> String.format("%,d; %,d", r.post().bad(), r.posted()));
            machineRow(rounds, "a request", r -> r.postCpu(), r -> r.post().requests());
            processRows(rounds, "a request", Round::postCpu, r -> r.post().requests());
            databaseRows(rounds, "a request", Round::postDb, r -> r.post().requests());

            section("GET /health/live: unauthenticated, same server and connections, %d s", settings.wrkSeconds());
            row(rounds, "requests/s (p50, p99)", r -> String.format("%s (%s, %s)", f0(r.get().perSecond()),
                    r.get().p50(), r.get().p99()));
            row(rounds, "machine CPU a request (Liberty)", r -> ms(r.getCpu().machineMillis(r.get().requests()))
                    + " (" + ms(CpuClock.Reading.millis(r.getCpu().liberty(), r.get().requests())) + ")");
            row(rounds, "every CPU busy: POST <=, GET <=", r -> f0(1000 * cpus / r.postCpu().machineMillis(r.post().requests()))
                    + ", " + f0(1000 * cpus / r.getCpu().machineMillis(r.get().requests())) + " req/s");
        }

        section("idle server, for scale: what it wrote and ran a second while the benchmark waited (after raw)");
        row(rounds, "writes, statements, WAL a second", r -> {
            PgCounters.Delta d = r.idleDb();
            return String.format("%.1f, %s, %,.0f B%s", d.total().writes() / d.seconds(),
                    d.statements() == null ? "n/a" : String.format("%.1f", d.calls() / d.seconds()), d.walBytes() / d.seconds(),
                    d.otherWrites() > 0 ? " *" : "");
        });

        section("targets (a verdict per round)");
        row(rounds, "dispatch: machine CPU <= 2 x raw's", r -> verdict(r.dispatchCpu().machineMillis(n),
                DISPATCH_CPU_OF_RAW * r.rawCpu().machineMillis(n), String.format("%.3f ms vs 2 x %.3f",
                        r.dispatchCpu().machineMillis(n), r.rawCpu().machineMillis(n))));
        row(rounds, "dispatch: PostgreSQL writes <= 3", r -> verdict(perUnit(r.dispatchDb().total().writes(), n),
                DISPATCH_TUPLE_WRITES, "%.4f")); // 4 places: a claimer's own lease row (2 writes a job execution) shows
        row(rounds, "dispatch: PostgreSQL WAL <= 1 KB", r -> verdict(perUnit(r.dispatchDb().walBytes(), n),
                DISPATCH_WAL_BYTES, "%,.0f B"));
        row(rounds, "dispatch: PostgreSQL CPU <= 0.15 ms", r -> verdict(
                CpuClock.Reading.millis(r.dispatchCpu().postgres(), n), DISPATCH_POSTGRES_MILLIS, "%.3f ms"));
        row(rounds, "bulk enqueue: machine CPU <= 0.12 ms", r -> verdict(r.enqueueCpu().machineMillis(n),
                ENQUEUE_MACHINE_MILLIS, "%.3f ms"));
        if (wrk) {
            row(rounds, "single POST: machine CPU <= 0.7 ms", r -> verdict(
                    r.postCpu().machineMillis(r.post().requests()), POST_MACHINE_MILLIS, "%.3f ms"));
        }
        if (settings.latencyMails() > 0) {
            row(rounds, "idle latency: p50<=100, p99<=500", r -> String.format("%,.0f, %,.0f ms: %s",
                    r.idle().latencyMillisP50(), r.idle().latencyMillisP99(),
                    met(r.idle().latencyMillisP50() <= LATENCY_P50_MILLIS && r.idle().latencyMillisP99() <= LATENCY_P99_MILLIS)));
        }
        out.println("(throughput is information only: the targets are CPU and database work per mail or request)");
        if (rounds.stream().anyMatch(r -> others(r.enqueueDb()) || others(r.dispatchDb()) || others(r.postDb())
                || others(r.idleDb()))) {
            out.println("* other schemas or databases wrote tuples between the readings (see the details): that WAL counts"
                    + " here too, and their statements if they ran as the same user in this database");
        }

        boolean complete = true;
        for (Round r : rounds) {
            complete &= check(r);
        }
        for (Round r : rounds) {
            details(r);
        }
        return complete;
    }

    private boolean check(Round r) {
        int n = settings.mails();
        QueueDatabase.DispatchFigures d = r.dispatched();
        boolean ok = d.sent() == n && d.notSent() == 0 && d.attempts() == n && d.sentAttempts() == n
                && (r.sinkQueue() < 0 || r.sinkQueue() == n) && (r.sinkRaw() < 0 || r.sinkRaw() == n)
                && (r.idle() == null || r.idle().sent() == settings.latencyMails() && r.idle().notSent() == 0);
        out.printf("check round %d       %,d SENT, %,d not, %,d attempts (%,d sent); smtp-sink received %s from the"
                        + " queue, %s raw: %s%s%n", r.number(), d.sent(), d.notSent(), d.attempts(), d.sentAttempts(),
                sinkText(r.sinkQueue()), sinkText(r.sinkRaw()), ok ? "OK" : "MISMATCH",
                r.dispatchEarly() ? "; WARNING: dispatch began before its counters were read" : "");
        return ok;
    }

    /** Per round: which tables took the writes, and the statements with the most calls, per mail or request. */
    private void details(Round r) {
        int n = settings.mails();
        out.println();
        out.printf("--- round %d: where PostgreSQL's work went (tuple writes by table; top %d statements by calls), per"
                + " mail or request ---%n", r.number(), TOP_STATEMENTS);
        phaseDetails("bulk enqueue", r.enqueueDb(), n);
        phaseDetails("dispatch", r.dispatchDb(), n);
        if (r.postDb() != null) {
            phaseDetails("single POST", r.postDb(), r.post().requests());
        }
    }

    private void phaseDetails(String phase, PgCounters.Delta d, long units) {
        StringBuilder tables = new StringBuilder();
        for (Map.Entry<String, PgCounters.TableCounts> e : d.tablesByWrites()) {
            PgCounters.TableCounts t = e.getValue();
            if (t.writes() == 0) {
                continue;
            }
            tables.append(tables.isEmpty() ? "" : ", ").append(e.getKey()).append(' ')
                    .append(String.format("%.2f", perUnit(t.writes(), units))).append(" (");
            String sep = "";
            if (t.inserted() != 0) {
                tables.append(String.format("ins %.2f", perUnit(t.inserted(), units)));
                sep = " ";
            }
            if (t.updated() != 0) {
                tables.append(sep).append(String.format("upd %.2f, %.0f %% HOT", perUnit(t.updated(), units),
                        100.0 * t.hotUpdated() / t.updated()));
                sep = " ";
            }
            if (t.deleted() != 0) {
                tables.append(sep).append(String.format("del %.2f", perUnit(t.deleted(), units)));
            }
            tables.append(')');
        }
        out.printf("%-13s tables      %s%n", phase, tables.isEmpty() ? "no writes" : tables);
        long vacuums = d.tables().values().stream().mapToLong(PgCounters.TableCounts::autovacuums).sum();
        long analyzes = d.tables().values().stream().mapToLong(PgCounters.TableCounts::autoanalyzes).sum();
        String notes = (vacuums + analyzes > 0 ? String.format("; autovacuum %d, autoanalyze %d runs", vacuums, analyzes) : "")
                + (d.settled() ? "" : "; tuple counters were STILL MOVING when read")
                + (d.statementsLost() ? "; pg_stat_statements evicted entries meanwhile (calls too low)" : "");
        out.printf("%-13s WAL         %,.0f B, %.3f full-page images; %.1f s between the readings; other schemas and"
                        + " databases wrote %,d tuples meanwhile%s%n", "", perUnit(d.walBytes(), units),
                perUnit(d.walFpi(), units), d.seconds(), d.otherWrites(), notes);
        if (d.statements() == null) {
            out.printf("%-13s statements  n/a%n", "");
            return;
        }
        out.printf("%-13s statements  %.3f calls, of which the top %d:  (their own WAL %,.0f B, commit records not"
                        + " included)%n", "", perUnit(d.calls(), units), TOP_STATEMENTS,
                perUnit(d.statementWalBytes(), units));
        for (PgCounters.StatementCounts s : d.top(TOP_STATEMENTS)) {
            String query = s.query() == null ? "?" : s.query().replaceAll("\\s+", " ").strip();
            out.printf("%-13s   %8.3f  %s%n", "", perUnit(s.calls(), units),
                    query.length() > QUERY_CHARS ? query.substring(0, QUERY_CHARS) + "..." : query);
        }
    }

    private void machineRow(List<Round> rounds, String unit, Function<Round, CpuClock.Reading> cpu, long units) {
        machineRow(rounds, unit, cpu, r -> units);
    }

    private void machineRow(List<Round> rounds, String unit, Function<Round, CpuClock.Reading> cpu,
                            Function<Round, Long> units) {
        row(rounds, "machine CPU " + unit, r -> ms(cpu.apply(r).machineMillis(units.apply(r))) + " (" + busy(cpu.apply(r)) + ")");
    }

    private void processRows(List<Round> rounds, String unit, Function<Round, CpuClock.Reading> cpu, long units) {
        processRows(rounds, unit, cpu, r -> units);
    }

    private void processRows(List<Round> rounds, String unit, Function<Round, CpuClock.Reading> cpu,
                             Function<Round, Long> units) {
        row(rounds, "Liberty / PostgreSQL CPU " + unit, r -> ms(CpuClock.Reading.millis(cpu.apply(r).liberty(),
                units.apply(r))) + " / " + ms(CpuClock.Reading.millis(cpu.apply(r).postgres(), units.apply(r))));
        row(rounds, "of Liberty's: JIT / GC threads", r -> ms(CpuClock.Reading.millis(cpu.apply(r).libertyJit(),
                units.apply(r))) + " / " + ms(CpuClock.Reading.millis(cpu.apply(r).libertyGc(), units.apply(r))));
    }

    private void databaseRows(List<Round> rounds, String unit, Function<Round, PgCounters.Delta> delta, long units) {
        databaseRows(rounds, unit, delta, r -> units);
    }

    private void databaseRows(List<Round> rounds, String unit, Function<Round, PgCounters.Delta> delta,
                              Function<Round, Long> units) {
        row(rounds, "WAL " + unit, r -> String.format("%,.0f B (%.2f full pages)%s",
                perUnit(delta.apply(r).walBytes(), units.apply(r)), perUnit(delta.apply(r).walFpi(), units.apply(r)),
                delta.apply(r).otherWrites() > 0 ? " *" : ""));
        row(rounds, "tuple writes " + unit, r -> {
            PgCounters.Delta d = delta.apply(r);
            return String.format("%.2f", perUnit(d.total().writes(), units.apply(r)))
                    + (d.hotShare() < 0 ? "" : String.format(" (HOT %.0f %% of upd.)", 100 * d.hotShare()))
                    + (d.settled() ? "" : " MOVING");
        });
        row(rounds, "statements " + unit, r -> delta.apply(r).statements() == null ? "n/a"
                : String.format("%.3f", perUnit(delta.apply(r).calls(), units.apply(r))));
    }

    private void header(List<Round> rounds) {
        StringBuilder line = new StringBuilder(String.format("%-" + LABEL + "s", ""));
        for (Round r : rounds) {
            line.append(String.format("%-" + COLUMN + "s", "round " + r.number()));
        }
        out.println(line.toString().stripTrailing());
    }

    private void section(String format, Object... args) {
        out.println(String.format(format, args));
    }

    private void row(List<Round> rounds, String label, Function<Round, String> value) {
        StringBuilder line = new StringBuilder(String.format("  %-" + (LABEL - 3) + "s ", label));
        for (Round r : rounds) {
            String v;
            try {
                v = value.apply(r);
            } catch (RuntimeException e) { // a figure that was not measured
                v = "n/a";
            }
            line.append(String.format("%-" + COLUMN + "s", v)).append(v.length() >= COLUMN ? " " : "");
        }
        out.println(line.toString().stripTrailing());
    }

    private static boolean others(PgCounters.Delta d) {
        return d != null && d.otherWrites() > 0;
    }

    private static String busy(CpuClock.Reading cpu) {
        CpuClock.Machine m = cpu.machine();
        return m == null ? "n/a" : String.format("%.0f %% busy", 100 * m.busyShare())
                + (m.stealShare() >= 0.005 ? String.format(", %.0f %% stolen", 100 * m.stealShare()) : "");
    }

    /** @return the value (formatted) and whether it is at most the limit */
    private static String verdict(double value, double limit, String format) {
        if (value < 0 || Double.isNaN(value)) {
            return "n/a";
        }
        return (format.contains("%") ? String.format(format, value) : format) + ": " + met(value <= limit);
    }

    private static String met(boolean met) {
        return met ? "met" : "MISSED";
    }

    private static double perUnit(long count, long units) {
        return count < 0 || units <= 0 ? -1 : (double) count / units;
    }

    private static String ms(double millis) {
        return millis < 0 ? "n/a" : String.format("%.3f ms", millis);
    }

    private static String f0(double value) {
        return Double.isFinite(value) ? String.format("%,.0f", value) : "n/a";
    }

    private static String sinkText(long count) {
        return count < 0 ? "(not counted)" : String.format("%,d", count);
    }
}
