package dev.mailqueue.api;

/**
 * Thrown when another enqueue with the same idempotency key committed while this one was under way
 * (two duplicates raced). The caller's transaction is rolled back; calling again with the same key
 * returns the mail the other enqueue queued.
 */
public class IdempotencyConflictException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    /** @param key the idempotency key both enqueues carried */
    public IdempotencyConflictException(String key) {
        super("Another enqueue with idempotency key '" + key + "' committed first; call again to receive its mail");
    }
}
