package dev.mailqueue.bounce.boundary;

import dev.mailqueue.api.Roles;
import dev.mailqueue.server.control.SingleExecution;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.annotation.PostConstruct;
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
import jakarta.mail.Session;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts the {@code bounce-intake} batch job every {@code mailqueue.bounce.interval.ms}
 * when the server binds a bounce mailbox, a mail session named {@code mailqueue.bounce.mailbox};
 * without one, nothing is scheduled. A run is skipped while this
 * server's previous one still runs. Several servers may read the same mailbox: a report is recorded
 * once, by its key, whoever reads it.
 *
 * <p>While the mailbox cannot be read (its IMAP server down, a password changed), each run fails; after a failed
 * run the next ones wait longer ({@link #pause}: 1, then 3, then at most 7 intervals skipped), so an outage fills
 * the log with one failure every 8 intervals instead of one every interval. A run that completes ends the pause.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrator")
@DeclareRoles(Roles.DISPATCHER)
@RunAs(Roles.DISPATCHER) // with security on, batch jobs start only for a user with a batch role (server.xml)
public class BounceIntakeScheduler {

    /** The job XML's name in META-INF/batch-jobs. */
    public static final String JOB = "bounce-intake";

    private static final Logger LOG = Logger.getLogger(BounceIntakeScheduler.class.getName());

    @jakarta.annotation.Resource
    TimerService timers;

    @Inject
    QueueSettings settings;

    private final SingleExecution execution = new SingleExecution(JOB);
    private Long judged;          // the last execution whose outcome was counted
    private int failures;         // failed executions in a row
    private long pausedUntilMillis;

    /**
     * @param intervalMillis the intake's interval, ms
     * @param failures       failed runs in a row, 0 or more
     * @return how long to wait after the latest failed run before starting another, ms: 0 without failures, then
     *         1, 3 and at most 7 intervals
     */
    static long pause(long intervalMillis, int failures) {
        return failures <= 0 ? 0 : intervalMillis * ((1L << Math.min(failures, 3)) - 1);
    }

    @PostConstruct
    void schedule() {
        String name = settings.bounceMailbox();
        if (!isBound(name)) {
            LOG.info(() -> "bounce intake off: no mail session is bound as " + name
                    + " (mailqueue.bounce.mailbox); bounces are known only when a server refuses during SMTP");
            return;
        }
        timers.createIntervalTimer(settings.bounceIntervalMillis(), settings.bounceIntervalMillis(),
                new TimerConfig(JOB, false));
        LOG.info(() -> "bounce intake: reading " + name + " folder " + settings.bounceFolder() + " every "
                + settings.bounceIntervalMillis() + " ms");
    }

    private static boolean isBound(String name) {
        try {
            return new InitialContext().lookup(name) instanceof Session;
        } catch (NamingException e) {
            return false;
        }
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // batch steps manage their own transactions
    void run(Timer timer) {
        long now = System.currentTimeMillis();
        try {
            Long last = execution.lastStarted();
            if (last != null && !last.equals(judged)) {
                jakarta.batch.runtime.BatchStatus status = execution.lastStatus();
                if (status == jakarta.batch.runtime.BatchStatus.FAILED) {
                    judged = last;
                    failures++;
                    pausedUntilMillis = now + pause(settings.bounceIntervalMillis(), failures);
                } else if (status == jakarta.batch.runtime.BatchStatus.COMPLETED) {
                    judged = last;
                    failures = 0;
                    pausedUntilMillis = 0;
                }
            }
            if (now < pausedUntilMillis) {
                return;
            }
            execution.startUnlessRunning(new Properties());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not start the bounce intake; trying again at the next interval", e);
        }
    }
}
