package dev.mailqueue.api;

/** Thrown when a mail's status does not allow the action, e.g. cancelling a mail already sent. */
public class MailStateException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    /**
     * @param id     the mail
     * @param status its status now
     * @param action what was asked, e.g. {@code cancel}
     */
    public MailStateException(long id, MailStatus status, String action) {
        super("Mail " + id + " is " + status + " and cannot " + action);
    }
}
