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
    IN_DOUBT
}
