package dev.mailqueue.mail.entity;

/** How one delivery attempt ended. */
public enum AttemptOutcome {
    /** The SMTP server accepted the message. */
    SENT,
    /** The attempt failed: no connection, a refused command, or a timeout. */
    FAILED
}
