package dev.mailqueue.erasure.control;

import dev.mailqueue.queue.control.ErasureReceipts;
import dev.mailqueue.queue.control.ErasureStore;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.AbstractBatchlet;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.runtime.context.JobContext;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The erasure job's last step. First the mails that were being sent when the first step came to them: tried again
 * every {@value #RETRY_MILLIS} ms until they are gone, for at most twice the claim's lease
 * ({@code mailqueue.dispatch.lease.ms}: a send ends within it, or its lease expires and the mail goes back to
 * the queue, where it can be deleted). Then {@link ErasureStore#finish}. Its exit status, and the job's, is the
 * receipt's counts, e.g. {@code MAILS=3,CANCELLED=1,...}: no address.
 *
 * @see ErasureReader
 */
@Named("ErasureFinish")
@Dependent // a new instance per step execution, as batch artifacts need
public class ErasureFinish extends AbstractBatchlet {

    private static final Logger LOG = Logger.getLogger(ErasureFinish.class.getName());

    /** How long to wait between tries of the mails being sent, ms. */
    static final long RETRY_MILLIS = 2_000;

    @Inject
    @BatchProperty(name = ErasureJob.ERASURE_ID)
    String erasureId;

    @Inject
    JobContext job;

    @Inject
    StepContext step;

    @Inject
    ErasureStore store;

    @Inject
    ErasureReceipts receipts;

    @Inject
    ErasureTransactions transactions;

    @Inject
    QueueSettings settings;

    private volatile boolean stopped;

    /**
     * @return the receipt's counts
     * @throws IllegalStateException when mails were still being sent at the deadline (the job fails; a restart runs
     *                               it again), or the job was stopped meanwhile
     * @throws InterruptedException  when the thread is interrupted while it waits
     */
    @Override
    public String process() throws InterruptedException {
        long id = ErasureJob.id(erasureId);
        List<Long> left = new ArrayList<>(ErasureJob.beingSent(job));
        long deadline = System.currentTimeMillis() + 2 * settings.leaseMillis();
        while (!left.isEmpty()) {
            if (stopped || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("erasure " + id + ": " + left.size() + " mails were still being sent"
                        + (stopped ? " when the job was stopped" : " after twice the lease") + "; restart the job");
            }
            Thread.sleep(RETRY_MILLIS);
            left = transactions.erase(id, store.existing(left));
        }
        transactions.finish(id, Instant.now());
        Map<String, Long> counts = receipts.receipt(id).orElseThrow().counts();
        String status = counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
        step.setExitStatus(status);
        job.setExitStatus(status);
        LOG.info(() -> "erasure " + id + " (execution " + job.getExecutionId() + ") completed: " + status);
        return status;
    }

    @Override
    public void stop() {
        stopped = true;
    }
}
