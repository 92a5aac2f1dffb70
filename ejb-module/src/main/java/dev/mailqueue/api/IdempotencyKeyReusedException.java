package dev.mailqueue.api;

/**
 * Thrown when an idempotency key comes again with a different request than the one it first queued:
 * the key names one request, so the new one is refused and nothing is queued (the IETF draft "The
 * Idempotency-Key HTTP Header Field", draft-ietf-httpapi-idempotency-key-header §2.6: 422). The mail
 * the key first queued is unchanged. Over REST: 422 with problem details.
 */
public class IdempotencyKeyReusedException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    private final long firstMailId;

    /**
     * @param key         the idempotency key
     * @param firstMailId the id of the mail the key first queued
     */
    public IdempotencyKeyReusedException(String key, long firstMailId) {
        super("Idempotency key '" + key + "' was first used with a different request (mail " + firstMailId
                + "); a key names one request. Nothing was queued.");
        this.firstMailId = firstMailId;
    }

    /** @return the id of the mail the key first queued */
    public long getFirstMailId() {
        return firstMailId;
    }
}
