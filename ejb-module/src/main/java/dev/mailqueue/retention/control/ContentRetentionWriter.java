package dev.mailqueue.retention.control;

import dev.mailqueue.queue.control.ContentStore;
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
 * Removes the content of each chunk of mail ids in the chunk's transaction ({@link ContentStore#remove}, which
 * re-checks each mail), and adds {@code CONTENT_REMOVED=<n>} to the job's exit status ({@code DELETED=<m>}, from the
 * first step): the mails whose content committed chunks removed; {@code CONTENT_REMOVED=<n>,UNCONFIRMED=<k>} when
 * the step failed with k removed in the chunk in flight, most likely rolled back. A job whose content setting
 * removes nothing before the mail goes keeps the exit status of its first step.
 */
@Named("ContentRetentionWriter")
@Dependent // a new instance per step execution, as batch artifacts need
public class ContentRetentionWriter extends AbstractItemWriter {

    private static final Logger LOG = Logger.getLogger(ContentRetentionWriter.class.getName());

    @Inject
    JobContext job;

    @Inject
    StepContext step;

    @Inject
    ContentStore store;

    private final ChunkTally tally = new ChunkTally();
    private boolean wrote;

    @Override
    public void writeItems(List<Object> items) {
        wrote = true;
        List<Long> ids = items.stream().map(Long.class::cast).toList();
        tally.chunk(store.remove(ids, (Instant) step.getTransientUserData(), Instant.now()));
    }

    @Override
    public void close() {
        String status = tally.status("CONTENT_REMOVED", step.getException() != null);
        step.setExitStatus(status);
        if (wrote || step.getException() != null) {
            job.setExitStatus(job.getExitStatus() == null ? status : job.getExitStatus() + "," + status);
            LOG.info(() -> "mail retention (execution " + job.getExecutionId() + "): " + status);
        }
    }
}
