package dev.mailqueue.queue.control;

/** How an attempt at a mail ended, and so what becomes of the mail ({@link Transition}). */
public enum Verdict {
    /** Every recipient is settled and at least one accepted it: SENT. */
    SENT,
    /** Worth another try: QUEUED again after the backoff, while attempts and lifetime remain. */
    TRANSIENT,
    /** Never worth another try: FAILED at once. */
    PERMANENT,
    /**
     * The end of DATA was sent but no answer came (a timeout, a broken connection): the server may have
     * the mail. Counted as an attempt; the in-doubt policy decides between another try after the
     * backoff and HELD. Never resent at once.
     */
    IN_DOUBT,
    /** Past its expires-at before it could be sent; not attempted: EXPIRED. */
    EXPIRED
}
