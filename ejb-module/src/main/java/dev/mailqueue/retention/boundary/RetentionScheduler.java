package dev.mailqueue.retention.boundary;

import dev.mailqueue.api.Roles;
import dev.mailqueue.server.control.SingleExecution;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RunAs;
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
import dev.mailqueue.settings.control.QueueSettings;

import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts the {@code mail-retention} batch job on a calendar timer (non-persistent), which deletes
 * mails in a final state older than {@code mailqueue.retention.days} days. Settings:
 * <ul>
 *   <li>{@code mailqueue.retention.enabled}, default true; false schedules nothing;</li>
 *   <li>{@code mailqueue.retention.days}, default 15 (as in the seed article), 1 or more;</li>
 *   <li>{@code mailqueue.retention.schedule}, default {@code 0 0 3 * * *}: daily at 03:00 server time,
 *       when mail traffic is usually lowest (six EJB calendar fields, see {@link CalendarSchedule});</li>
 *   <li>{@code mailqueue.retention.chunk-size}, default 500 mails per transaction: under Derby's lock
 *       escalation threshold (5,000 row locks a table) even with a few attempts a mail, and under
 *       Oracle's 1,000 expressions an IN list.</li>
 * </ul>
 * A run is skipped while the previous one on this server still runs. Several servers sharing the
 * database each run the job; they delete the same rows at most once (the delete re-checks each row),
 * so this is harmless, but one server with retention enabled is enough.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrator")
@DeclareRoles(Roles.DISPATCHER)
@RunAs(Roles.DISPATCHER) // with security on, batch jobs start only for a user with a batch role (server.xml)
public class RetentionScheduler {

    /** The job XML's name in META-INF/batch-jobs. */
    public static final String JOB = "mail-retention";

    private static final Logger LOG = Logger.getLogger(RetentionScheduler.class.getName());

    @Resource
    TimerService timers;

    @Inject
    QueueSettings settings;

    private final SingleExecution execution = new SingleExecution(JOB);

    @PostConstruct
    void schedule() {
        if (!settings.retentionEnabled()) {
            LOG.info("mail retention is disabled (mailqueue.retention.enabled=false)");
            return;
        }
        timers.createCalendarTimer(CalendarSchedule.parse(settings.retentionSchedule()), new TimerConfig(JOB, false));
        LOG.info(() -> "mail retention: finished mails older than " + settings.retentionDays()
                + " days are deleted on schedule \"" + settings.retentionSchedule() + "\", "
                + settings.retentionChunkSize() + " a transaction");
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // batch steps manage their own transactions
    void run(Timer timer) {
        try {
            if (execution.startUnlessRunning(new Properties()) == null) {
                LOG.info(() -> "mail retention execution " + execution.lastStarted() + " still runs; skipping this run");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not start mail retention; trying again at the next scheduled time", e);
        }
    }
}
