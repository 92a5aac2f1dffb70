package dev.mailqueue.api;

import jakarta.ejb.ApplicationException;

/**
 * Base of the exceptions the queue throws to say a request cannot be done as asked. They are checked
 * application exceptions: they reach the caller as they are (not wrapped in an {@code EJBException})
 * and roll back the transaction of the call, so nothing is half-queued. Checked, because RMI-IIOP
 * maps only checked exceptions to ones the remote stub rebuilds as the caller's own classes (an
 * unchecked one arrives as a class of the queue's application, which the caller cannot catch by type).
 */
@ApplicationException(rollback = true)
public abstract class MailQueueException extends Exception {

    private static final long serialVersionUID = 1L;

    protected MailQueueException(String message) {
        super(message);
    }
}
