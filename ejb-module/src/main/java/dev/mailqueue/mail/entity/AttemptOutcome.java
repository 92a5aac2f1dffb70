package dev.mailqueue.mail.entity;

/** How one delivery attempt ended. */
public enum AttemptOutcome {
    /** The SMTP server accepted the message. */
    SENT,
    /** The attempt failed: no connection, a refused command, or a timeout. */
    FAILED,
    /**
     * The claimer's lease expired after it may have begun the SMTP transaction (it died or hung), so
     * nobody knows whether the server took the message. Recorded when the lease is taken back.
     */
    IN_DOUBT,
    /**
     * Not an attempt of ours: a Delivery Status Notification read from the bounce mailbox reported the
     * mail undeliverable for a recipient after a server had accepted it (RFC 3464 {@code Action: failed}).
     */
    BOUNCED,
    /** A Delivery Status Notification said delivery to a recipient is delayed ({@code Action: delayed}); nothing changes. */
    DELAYED,
    /** A complaint (ARF feedback report, RFC 5965) named the mail: its recipient marked it as spam. */
    COMPLAINED
}
