package dev.mailqueue.api;

/** Thrown when no mail has the given id (never queued, rolled back, or deleted by retention). */
public class MailNotFoundException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    /** @param id the id that was asked for */
    public MailNotFoundException(long id) {
        super("No mail with id " + id);
    }
}
