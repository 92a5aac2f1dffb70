package dev.mailqueue.dispatch.control;

import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.util.List;

/**
 * The dispatch job's writer: at the end of a chunk it submits the changes still waiting (the last
 * mail's outcome, which had no next mail to go out with) and returns once every change of the chunk is
 * durable, so a checkpoint means "recorded". It writes nothing in the chunk's transaction: the journal
 * commits in transactions of its own ({@link OutcomeJournal}).
 */
@Named("OutcomeWriter")
@Dependent // a new instance per step execution, as batch artifacts need
public class OutcomeWriter extends AbstractItemWriter {

    @Inject
    JobContext job;

    @Inject
    OutsideTransaction outside;

    @Override
    public void writeItems(List<Object> items) {
        Claimer claimer = ClaimerLifecycle.of(job);
        outside.call(() -> {
            claimer.flush();
            return null;
        });
    }
}
