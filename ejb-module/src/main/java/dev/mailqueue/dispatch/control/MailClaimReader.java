package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemReader;
import jakarta.batch.runtime.context.JobContext;
import jakarta.inject.Inject;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.PessimisticLockException;

import java.io.Serializable;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.logging.Logger;

/**
 * Reads the dispatch job's items by claiming them: when its buffer is empty it claims up to
 * {@code batchSize} due mails under a lease of {@code leaseMillis} for this job execution, and the
 * step ends when a claim finds nothing due. Restart needs no checkpoint: the rows' leases are the
 * state, and rows leased by a failed execution come back when their lease expires.
 */
@Named("MailClaimReader")
@Dependent // a new instance per step execution, as batch artifacts need
public class MailClaimReader extends AbstractItemReader {

    private static final Logger LOG = Logger.getLogger(MailClaimReader.class.getName());

    @Inject
    @BatchProperty
    String batchSize;

    @Inject
    @BatchProperty
    String leaseMillis;

    @Inject
    @BatchProperty
    String inDoubt;

    @Inject
    JobContext job;

    @Inject
    MailClaimer claimer;

    @Inject
    ServerInstance server;

    @Inject
    DispatchMetrics metrics;

    private final Deque<MailMessage> claimed = new ArrayDeque<>();
    private String owner;
    private int limit;
    private long lease;
    private InDoubtPolicy inDoubtPolicy;

    @Override
    public void open(Serializable checkpoint) {
        owner = server.leaseOwner(job.getExecutionId());
        limit = JobSettings.positiveInt("batchSize", batchSize, 100);
        lease = JobSettings.positiveLong("leaseMillis", leaseMillis, 900_000L);
        inDoubtPolicy = JobSettings.choice("inDoubt", inDoubt, InDoubtPolicy.class, InDoubtPolicy.RESEND);
    }

    /**
     * @return the next claimed mail, or null when nothing is due or the claim lost a lock conflict
     *         with another claimer (ends the step; the next timer tick claims again)
     */
    @Override
    public Object readItem() {
        if (claimed.isEmpty()) {
            long started = System.nanoTime();
            try {
                claimed.addAll(claimer.claim(owner, lease, limit, Utc.now(), inDoubtPolicy));
                metrics.claimed(Duration.ofNanos(System.nanoTime() - started));
            } catch (RuntimeException e) {
                if (!isLockConflict(e)) {
                    throw e;
                }
                LOG.info(() -> owner + " stops: its claim lost a lock conflict (" + e.getMessage() + ")");
                return null;
            }
            if (!claimed.isEmpty()) {
                LOG.fine(() -> owner + " claimed " + claimed.size() + " mails");
            }
        }
        return claimed.poll();
    }

    /** SQLSTATE class 40 is transaction rollback: deadlock victim or lock timeout. */
    static boolean isLockConflict(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("40")) {
                return true;
            }
            if (t instanceof PessimisticLockException || t instanceof LockTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
