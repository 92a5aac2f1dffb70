package dev.mailqueue.dispatch.boundary;

import dev.mailqueue.dispatch.control.DispatchHeartbeat;
import dev.mailqueue.dispatch.control.MailClaimer;
import dev.mailqueue.mail.boundary.Roles;
import dev.mailqueue.mail.entity.Utc;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RunAs;
import jakarta.batch.operations.JobOperator;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.batch.runtime.BatchStatus;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.LinkedHashSet;
import java.util.Properties;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every {@code mailqueue.dispatch.interval.ms} (non-persistent interval timer) starts executions of
 * the {@code mail-dispatch} batch job when mail is due, keeping at most
 * {@code mailqueue.dispatch.claimers} executions of this server running at once. Each execution is
 * one claimer; claimers on this and other servers share the queue through leases. Settings reach the
 * job as job parameters.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrator")
@DeclareRoles(Roles.DISPATCHER)
@RunAs(Roles.DISPATCHER) // with security on, batch jobs start only for a user with a batch role (server.xml)
public class DispatchScheduler {

    /** The job XML's name in META-INF/batch-jobs. */
    public static final String JOB = "mail-dispatch";

    private static final Logger LOG = Logger.getLogger(DispatchScheduler.class.getName());

    @Resource
    TimerService timers;

    @Inject
    MailClaimer claimer;

    @Inject
    DispatchHeartbeat heartbeat;

    @Inject
    @ConfigProperty(name = "mailqueue.dispatch.interval.ms", defaultValue = "5000")
    long intervalMillis;

    @Inject
    @ConfigProperty(name = "mailqueue.dispatch.claimers", defaultValue = "1")
    int claimers;

    @Inject
    @ConfigProperty(name = "mailqueue.dispatch.batch-size", defaultValue = "100")
    int batchSize;

    @Inject
    @ConfigProperty(name = "mailqueue.dispatch.lease.ms", defaultValue = "900000")
    long leaseMillis;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.backoff.min.ms", defaultValue = "300000")
    long backoffMinMillis;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.backoff.max.ms", defaultValue = "4000000")
    long backoffMaxMillis;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.backoff.jitter", defaultValue = "0.25")
    double backoffJitter;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.max-attempts", defaultValue = "100")
    int maxAttempts;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.in-doubt", defaultValue = "RESEND")
    String inDoubt;

    private final Set<Long> running = new LinkedHashSet<>();

    @PostConstruct
    void schedule() {
        require("mailqueue.dispatch.interval.ms", intervalMillis >= 100, intervalMillis);
        require("mailqueue.dispatch.claimers", claimers >= 1, claimers);
        require("mailqueue.dispatch.batch-size", batchSize >= 1, batchSize);
        require("mailqueue.dispatch.lease.ms", leaseMillis >= 1000, leaseMillis);
        require("mailqueue.delivery.backoff.min.ms", backoffMinMillis >= 0, backoffMinMillis);
        require("mailqueue.delivery.backoff.max.ms", backoffMaxMillis >= backoffMinMillis, backoffMaxMillis);
        require("mailqueue.delivery.backoff.jitter", backoffJitter >= 0 && backoffJitter <= 1, backoffJitter);
        require("mailqueue.delivery.max-attempts", maxAttempts >= 1, maxAttempts);
        require("mailqueue.delivery.in-doubt", "RESEND".equalsIgnoreCase(inDoubt) || "HOLD".equalsIgnoreCase(inDoubt), inDoubt);
        timers.createIntervalTimer(intervalMillis, intervalMillis, new TimerConfig(JOB, false));
        LOG.info(() -> "mail dispatch every " + intervalMillis + " ms, up to " + claimers
                + " claimers of " + batchSize + " mails, lease " + leaseMillis + " ms");
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // batch steps manage their own transactions
    void tick(Timer timer) {
        heartbeat.beat();
        try {
            JobOperator jobs = BatchRuntime.getJobOperator();
            running.removeIf(id -> isOver(jobs.getJobExecution(id).getBatchStatus()));
            int free = claimers - running.size();
            if (free <= 0) {
                return;
            }
            int waiting = claimer.claimable(Utc.now(), free * batchSize);
            int wanted = Math.min(free, (waiting + batchSize - 1) / batchSize);
            for (int i = 0; i < wanted; i++) {
                running.add(jobs.start(JOB, parameters()));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not start mail dispatch; trying again next interval", e);
        }
    }

    private Properties parameters() {
        Properties p = new Properties();
        p.setProperty("batchSize", Integer.toString(batchSize));
        p.setProperty("leaseMillis", Long.toString(leaseMillis));
        p.setProperty("backoffMinMillis", Long.toString(backoffMinMillis));
        p.setProperty("backoffMaxMillis", Long.toString(backoffMaxMillis));
        p.setProperty("backoffJitter", Double.toString(backoffJitter));
        p.setProperty("maxAttempts", Integer.toString(maxAttempts));
        p.setProperty("inDoubt", inDoubt.strip().toUpperCase(java.util.Locale.ROOT));
        return p;
    }

    private static boolean isOver(BatchStatus status) {
        return status != BatchStatus.STARTING && status != BatchStatus.STARTED && status != BatchStatus.STOPPING;
    }

    private static void require(String name, boolean ok, Object value) {
        if (!ok) {
            throw new IllegalStateException("configuration " + name + " is out of range: " + value);
        }
    }
}
