package dev.mailqueue.dispatch.control;

import jakarta.batch.api.listener.AbstractJobListener;
import jakarta.batch.runtime.context.JobContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * Makes the job execution a claimer before its step runs, and ends the claimer after the job, whether
 * it completed or failed: the mails it leased and never began to send go back to the queue at once.
 * The claimer travels to the step's reader, processor and writer as the job's transient user data.
 */
@Named("ClaimerLifecycle")
@Dependent // a new instance per job execution, as batch artifacts need
public class ClaimerLifecycle extends AbstractJobListener {

    @Inject
    JobContext job;

    @Inject
    Claimers claimers;

    @Override
    public void beforeJob() {
        job.setTransientUserData(claimers.start(job.getExecutionId()));
    }

    @Override
    public void afterJob() {
        if (job.getTransientUserData() instanceof Claimer claimer) {
            claimers.end(claimer);
        }
    }

    /** @return the claimer of the running job execution */
    static Claimer of(JobContext job) {
        if (job.getTransientUserData() instanceof Claimer claimer) {
            return claimer;
        }
        throw new IllegalStateException("the dispatch job runs without its ClaimerLifecycle listener");
    }
}
