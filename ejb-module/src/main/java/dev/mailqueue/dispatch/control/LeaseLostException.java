package dev.mailqueue.dispatch.control;

/**
 * A claimer stops: it cannot be sure its lease still holds (its renewals did not reach the database in time, or
 * another server took the lease back after it ran out), so it must not end another mail's DATA. Its job
 * execution fails and ends; the mail it was sending was not delivered (its DATA was aborted before the final
 * "."), and whoever holds the mail next sends it.
 */
public class LeaseLostException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /**
     * @param owner  the claimer
     * @param mailId the mail whose DATA was aborted
     * @param gone   true when the lease is known to be gone, false when it only was not renewed in time
     */
    public LeaseLostException(String owner, long mailId, boolean gone) {
        super(owner + " stops: " + (gone ? "its lease was taken back" : "its lease was not renewed in time")
                + "; mail " + mailId + " was not sent (DATA aborted before its end)");
    }
}
