package dev.mailqueue.benchmark;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * The cost of rendering at enqueue (run.sh with {@code TEMPLATES=1}, after the main client, on the same server):
 * per round, {@code mails} mails through {@code POST /api/mails/batch} composed as usual, then the same mails as
 * references to a stored template that renders into the same subject and 1 KB text, each with its own variables
 * (a mail merge). Both due the next day, then deleted, so nothing is sent. Prints, per phase, mails per second and
 * the CPU time per mail of the machine, Liberty and PostgreSQL ({@link CpuClock}), and the templated-to-composed
 * ratio of the machine's CPU per mail, taken in the same round.
 */
public final class TemplateCost {

    private TemplateCost() {
    }

    /**
     * @param args {@code --name=value} as {@link Settings} takes them: mails, enqueue-batch-size, http-connections,
     *             api-url, jdbc-url, db-user, db-password, liberty-pid, rounds
     * @throws Exception when a request or the database fails
     */
    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        Settings settings = Settings.parse(args);
        BulkEnqueuer enqueuer = new BulkEnqueuer(settings.apiUrl(), settings.httpConnections());
        enqueuer.storeTemplate();
        String run = "tpl" + Long.toString(System.currentTimeMillis(), 36);
        Instant tomorrow = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        int n = settings.mails();
        try (QueueDatabase db = new QueueDatabase(settings.jdbcUrl(), settings.dbUser(), settings.dbPassword())) {
            // warm-up of both forms, so the JIT has compiled the rendering as well as the plain path
            enqueuer.enqueue(run + "w", Math.min(n, 5_000), settings.enqueueBatchSize(), tomorrow, false);
            enqueuer.enqueue(run + "w", Math.min(n, 5_000), settings.enqueueBatchSize(), tomorrow, true);
            db.deleteQueued(run + "w");
            System.out.printf("=== render at enqueue: %,d mails per phase, batches of %d over %d connections ===%n", n,
                    settings.enqueueBatchSize(), settings.httpConnections());
            System.out.println("round  form        mails/s  machine ms/mail  liberty ms/mail  postgres ms/mail");
            for (int r = 1; r <= settings.rounds(); r++) {
                double composed = phase(r, "composed", run + "c" + r, false, enqueuer, settings, tomorrow);
                double templated = phase(r, "templated", run + "t" + r, true, enqueuer, settings, tomorrow);
                System.out.printf("%5d  templated / composed machine CPU per mail: %.2f (+%.3f ms per mail)%n", r,
                        templated / composed, templated - composed);
                db.deleteQueued(run + "c" + r);
                db.deleteQueued(run + "t" + r);
            }
        }
    }

    /** @return the machine's CPU per mail of one enqueue phase, ms */
    private static double phase(int round, String form, String tag, boolean templated, BulkEnqueuer enqueuer,
                                Settings settings, Instant due) throws Exception {
        CpuClock.Reading before = CpuClock.Reading.now(settings.libertyPid(), 0);
        BulkEnqueuer.Result result = enqueuer.enqueue(tag, settings.mails(), settings.enqueueBatchSize(), due, templated);
        CpuClock.Reading used = CpuClock.Reading.now(settings.libertyPid(), 0).since(before);
        double machine = used.machineMillis(settings.mails());
        System.out.printf("%5d  %-9s %9.0f  %15.3f  %15.3f  %16.3f%n", round, form, result.mailsPerSecond(), machine,
                CpuClock.Reading.millis(used.liberty(), settings.mails()),
                CpuClock.Reading.millis(used.postgres(), settings.mails()));
        return machine;
    }
}
