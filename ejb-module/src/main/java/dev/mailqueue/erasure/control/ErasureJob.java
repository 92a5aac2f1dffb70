package dev.mailqueue.erasure.control;

import jakarta.batch.runtime.context.JobContext;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What the {@code mail-erasure} job's artifacts share: its name, its one parameter, and the mails left for the last
 * step.
 */
public final class ErasureJob {

    /** The job XML's name in META-INF/batch-jobs. */
    public static final String NAME = "mail-erasure";

    /**
     * The job's one parameter: the erasure's id (MAIL_ERASURE.ID). Never the addresses: the batch runtime keeps a
     * job's parameters as long as the job, and they would outlive the erasure.
     */
    public static final String ERASURE_ID = "erasureId";

    private ErasureJob() {
    }

    /**
     * @param value the parameter's value
     * @return the erasure's id
     * @throws IllegalArgumentException when it is not a whole number
     */
    static long id(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("job parameter " + ERASURE_ID + " must be an erasure's id, was " + value, e);
        }
    }

    /**
     * @param job the job's context
     * @return the mails a claimer held when the first step came to them, which the last step tries again; kept in
     *         the job's transient data (lost on a restart, which runs the first step again)
     */
    @SuppressWarnings("unchecked")
    static Set<Long> beingSent(JobContext job) {
        Object data = job.getTransientUserData();
        if (data == null) {
            data = new LinkedHashSet<Long>();
            job.setTransientUserData(data);
        }
        return (Set<Long>) data;
    }
}
