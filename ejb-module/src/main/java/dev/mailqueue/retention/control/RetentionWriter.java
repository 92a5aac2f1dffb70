package dev.mailqueue.retention.control;

import dev.mailqueue.queue.control.OperatorStore;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.time.Instant;
import java.util.List;
import java.util.logging.Logger;

/**
 * Deletes each chunk of mail ids in the chunk's transaction (so {@code chunkSize} bounds what one
 * transaction deletes and locks), re-checking that each is still deletable, and sets the job's exit
 * status to {@code DELETED=<n>}: the mails deleted by committed chunks. When the step fails it is
 * {@code DELETED=<n>,UNCONFIRMED=<m>}: m rows were deleted in the chunk that was in flight, whose
 * transaction most likely rolled back.
 */
@Named("RetentionWriter")
@Dependent // a new instance per step execution, as batch artifacts need
public class RetentionWriter extends AbstractItemWriter {

    private static final Logger LOG = Logger.getLogger(RetentionWriter.class.getName());

    @Inject
    JobContext job;

    @Inject
    StepContext step;

    @Inject
    OperatorStore store;

    private final ChunkTally tally = new ChunkTally();

    @Override
    public void writeItems(List<Object> items) {
        List<Long> ids = items.stream().map(Long.class::cast).toList();
        tally.chunk(store.deleteFinished(ids, (Instant) step.getTransientUserData()));
    }

    @Override
    public void close() {
        String status = tally.status("DELETED", step.getException() != null);
        step.setExitStatus(status);
        job.setExitStatus(status);
        LOG.info(() -> "mail retention (execution " + job.getExecutionId() + "): " + status);
    }
}
