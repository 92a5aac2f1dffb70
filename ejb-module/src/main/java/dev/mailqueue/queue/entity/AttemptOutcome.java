package dev.mailqueue.queue.entity;

import java.util.EnumSet;
import java.util.Set;

/**
 * What one row of a mail's log (MAIL_ATTEMPT) records: a delivery attempt and how it ended, a report about the
 * mail, or a change of its status that was no attempt. The attempt log that callers see holds the kinds of
 * {@link #SHOWN}; every row may record the mail's new status and publish a delivery event.
 */
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
    COMPLAINED,
    /** Not attempted: the mail's expiry came first (its expires-at, or the queue's longest lifetime). */
    EXPIRED,
    /** An operator, a campaign cancel or its sender cancelled the mail. */
    CANCELLED,
    /** Recipients were on the suppression list, at enqueue or when the mail was claimed. */
    SUPPRESSED,
    /** An operator put the mail back into the queue. */
    REQUEUED,
    /** An address left a mailing list by a one-click unsubscribe link (RFC 8058); the row names no mail. */
    UNSUBSCRIBED,
    /** The mail's status, as the schema before V13 kept it in MAIL_MESSAGE (written once, by the migration). */
    STATE,
    /** A delivery event written before V13, kept as the mail's history. */
    NOTED;

    /** What the attempt log shows: attempts and the reports about them. */
    public static final Set<AttemptOutcome> SHOWN = Set.copyOf(EnumSet.of(SENT, FAILED, IN_DOUBT, BOUNCED, DELAYED,
            COMPLAINED));

    /** SMTP attempts: the ones that spend an attempt and set the mail's last-attempt time. */
    public static final Set<AttemptOutcome> ATTEMPTS = Set.copyOf(EnumSet.of(SENT, FAILED, IN_DOUBT));
}
