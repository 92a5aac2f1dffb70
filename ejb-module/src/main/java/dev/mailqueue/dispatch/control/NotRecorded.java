package dev.mailqueue.dispatch.control;

/**
 * The claimer's gate did not open in time (the outcome before could not be committed: the database is away), or
 * the mail's bodies could not be read for the same cause: nothing was delivered, and the claimer sends the same mail
 * again once the journal writes again.
 */
final class NotRecorded extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param cause what showed that the database is away */
    NotRecorded(Throwable cause) {
        super(cause);
    }
}
