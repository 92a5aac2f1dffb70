package dev.mailqueue.dispatch.boundary;

import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.dispatch.control.Claimers;
import dev.mailqueue.dispatch.control.DispatchHeartbeat;
import dev.mailqueue.dispatch.control.DispatchTransactions;
import dev.mailqueue.dispatch.control.SmtpConnections;
import dev.mailqueue.dispatch.control.WakeUpChannel;
import dev.mailqueue.api.Roles;
import dev.mailqueue.queue.control.AccountFilter;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RunAs;
import jakarta.batch.operations.JobOperator;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.batch.runtime.BatchStatus;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts claimers: executions of the {@code mail-dispatch} batch job, at most
 * {@code mailqueue.dispatch.claimers} of this server at once, as many as the mail due calls for. It does
 * so at once when mail is enqueued on this server ({@link #wake()}, after the enqueue committed) or, on
 * PostgreSQL, on another server ({@link WakeUpChannel}), and every {@code mailqueue.dispatch.interval.ms} on a
 * non-persistent interval timer, the safety net that finds mail enqueued on other servers whose notice was lost, mail whose not-before time came, leases that ran out, and
 * claimers that failed. Every third of the lease time it renews the leases of the live claimers.
 * Claimers on this and other servers share the queue through leases.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN) // wake() must never wait for a tick; startClaimers synchronizes
@DependsOn("SchemaMigrator")
@DeclareRoles(Roles.DISPATCHER)
@RunAs(Roles.DISPATCHER) // with security on, batch jobs start only for a user with a batch role (server.xml)
public class DispatchScheduler {

    /** The job XML's name in META-INF/batch-jobs. */
    public static final String JOB = "mail-dispatch";

    /** The info of the one-off timer a wake-up sets. */
    static final String WAKE = "mail-dispatch wake-up";

    private static final Logger LOG = Logger.getLogger(DispatchScheduler.class.getName());

    @Resource
    TimerService timers;

    @Resource
    ManagedScheduledExecutorService executor;

    @Inject
    QueueSettings settings;

    @Inject
    DispatchTransactions transactions;

    @Inject
    DispatchHeartbeat heartbeat;

    @Inject
    Claimers claimers;

    @Inject
    SmtpConnections connections;

    @Inject
    DispatchWakeUp wakeUp;

    @Inject
    WakeUpChannel channel;

    @Inject
    Accounts accounts;

    private final Set<Long> running = new LinkedHashSet<>();
    private ScheduledFuture<?> renewals;

    @PostConstruct
    void schedule() {
        timers.createIntervalTimer(settings.intervalMillis(), settings.intervalMillis(), new TimerConfig(JOB, false));
        long every = settings.leaseRenewal().toMillis();
        renewals = executor.scheduleAtFixedRate(claimers::renewLeases, every, every, TimeUnit.MILLISECONDS);
        if (settings.claimers() > 0) {
            channel.listen(wakeUp::notified); // PostgreSQL: mail enqueued on other servers wakes this one's claimers
        }
        LOG.info(() -> "mail dispatch every " + settings.intervalMillis() + " ms and on enqueue, up to "
                + settings.claimers() + " claimers of " + settings.batchSize() + " mails, lease "
                + settings.leaseMillis() + " ms renewed every " + every + " ms");
    }

    @PreDestroy
    void stop() {
        if (renewals != null) {
            renewals.cancel(false);
        }
    }

    /** The interval timer's tick, or the one-off timer of {@link #wake()}. */
    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // batch steps manage their own transactions
    void tick(Timer timer) {
        if (WAKE.equals(timer.getInfo())) {
            wakeUp.serve(() -> startClaimers(false)); // enqueued mail is QUEUED: no need to look for leases
        } else {
            heartbeat.beat();
            connections.closeIdle();
            startClaimers(true);
        }
    }

    /**
     * Starts claimers as soon as possible, if mail is due and fewer than the most claimers run; called by
     * {@link DispatchWakeUp} after an enqueue committed. It only sets a one-off timer and returns: the
     * timer runs as the dispatcher identity (batch jobs start only for it), whoever enqueued.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public void wake() {
        timers.createSingleActionTimer(0, new TimerConfig(WAKE, false));
    }

    /** @param withExpired true to count expired leases as work too (the interval tick; a wake-up skips it) */
    private synchronized void startClaimers(boolean withExpired) {
        try {
            JobOperator jobs = BatchRuntime.getJobOperator();
            running.removeIf(id -> isOver(jobs.getJobExecution(id).getBatchStatus()));
            int free = settings.claimers() - running.size();
            if (free <= 0) {
                return;
            }
            int batch = settings.batchSize();
            int waiting = transactions.countClaimable(Instant.now(), free * batch, withExpired,
                    AccountFilter.of(accounts.names(), Set.of(), accounts.defaultAccount().name()));
            int wanted = Math.min(free, (waiting + batch - 1) / batch);
            for (int i = 0; i < wanted; i++) {
                running.add(jobs.start(JOB, new Properties()));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not start mail dispatch; trying again next interval", e);
        }
    }

    private static boolean isOver(BatchStatus status) {
        return status != BatchStatus.STARTING && status != BatchStatus.STARTED && status != BatchStatus.STOPPING;
    }
}
