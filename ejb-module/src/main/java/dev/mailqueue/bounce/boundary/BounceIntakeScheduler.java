package dev.mailqueue.bounce.boundary;

import dev.mailqueue.mail.boundary.Roles;
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
        try {
            Properties parameters = new Properties();
            parameters.setProperty("chunkSize", Integer.toString(settings.bounceChunkSize()));
            execution.startUnlessRunning(parameters);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not start the bounce intake; trying again at the next interval", e);
        }
    }
}
