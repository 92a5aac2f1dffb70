package dev.mailqueue.erasure.control;

import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.util.List;

/**
 * Deletes each chunk of an erasure's mails in the chunk's transaction ({@link ErasureTransactions#erase}), and keeps
 * those a claimer held (being sent) in the job's transient data for the last step, which tries them again.
 */
@Named("ErasureWriter")
@Dependent // a new instance per step execution, as batch artifacts need
public class ErasureWriter extends AbstractItemWriter {

    @Inject
    @BatchProperty(name = ErasureJob.ERASURE_ID)
    String erasureId;

    @Inject
    JobContext job;

    @Inject
    ErasureTransactions transactions;

    @Override
    public void writeItems(List<Object> items) {
        List<Long> left = transactions.erase(ErasureJob.id(erasureId), items.stream().map(Long.class::cast).toList());
        if (!left.isEmpty()) {
            ErasureJob.beingSent(job).addAll(left);
        }
    }
}
