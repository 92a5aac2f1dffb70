package dev.mailqueue.server.control;

import jakarta.batch.operations.JobOperator;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.batch.runtime.BatchStatus;

import java.util.Properties;

/**
 * Starts a batch job on a timer at most once at a time on this server: a start is skipped while the
 * execution it started last is still starting, running or stopping. Other servers keep their own.
 * Not for concurrent timers of the same job: one instance per scheduler, which the container calls one
 * timeout at a time.
 */
public final class SingleExecution {

    private final String job;
    private Long running;

    /** @param job the job XML's name in META-INF/batch-jobs */
    public SingleExecution(String job) {
        this.job = job;
    }

    /**
     * @param parameters the job parameters
     * @return the new execution's id, or null when the previous one still runs (nothing was started)
     * @throws jakarta.batch.operations.JobStartException when the batch container refuses the start
     * @throws jakarta.batch.operations.JobSecurityException when the caller may not start jobs
     */
    public Long startUnlessRunning(Properties parameters) {
        JobOperator jobs = BatchRuntime.getJobOperator();
        if (running != null && isActive(jobs.getJobExecution(running).getBatchStatus())) {
            return null;
        }
        running = jobs.start(job, parameters);
        return running;
    }

    /** @return the status of the execution started last, or null before the first start */
    public BatchStatus lastStatus() {
        return running == null ? null : BatchRuntime.getJobOperator().getJobExecution(running).getBatchStatus();
    }

    /** @return the execution started last, or null before the first start */
    public Long lastStarted() {
        return running;
    }

    private static boolean isActive(BatchStatus status) {
        return status == BatchStatus.STARTING || status == BatchStatus.STARTED || status == BatchStatus.STOPPING;
    }
}
