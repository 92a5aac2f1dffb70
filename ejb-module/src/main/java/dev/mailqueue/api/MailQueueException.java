package dev.mailqueue.api;

import jakarta.ejb.ApplicationException;

/**
 * Base of the exceptions the queue throws to say a request cannot be done as asked. They are
 * application exceptions: they reach the caller as they are (not wrapped in an {@code EJBException})
 * and roll back the transaction of the call, so nothing is half-queued.
 */
@ApplicationException(rollback = true)
public abstract class MailQueueException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected MailQueueException(String message) {
        super(message);
    }
}
