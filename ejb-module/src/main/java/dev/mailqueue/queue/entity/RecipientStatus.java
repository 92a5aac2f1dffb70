package dev.mailqueue.queue.entity;

/** Where one recipient of a mail stands once its recipients have been treated differently. */
public enum RecipientStatus {
    /** The SMTP server accepted the mail for this recipient; it is never sent to it again. */
    SENT,
    /** Refused for good (5yz or class-5 enhanced status, e.g. 5.1.1 bad mailbox); never tried again. */
    REFUSED,
    /** Refused for now (4yz) or not reached; tried again with the mail's next attempt. */
    DEFERRED,
    /**
     * Accepted by the SMTP server, then reported undeliverable for good by a Delivery Status
     * Notification that came back later (RFC 3464 {@code Action: failed}, a 5.x.x status).
     */
    BOUNCED,
    /** Accepted and delivered, then reported by the recipient's provider as unwanted (ARF, RFC 5965). */
    COMPLAINED,
    /** On the suppression list when the mail was enqueued: never sent to, by this mail or a requeue of it. */
    SUPPRESSED
}
