package dev.mailqueue.api;

/**
 * Where a queued mail is in its life. {@link #QUEUED} and {@link #SENDING} are live; the others are
 * terminal and never change again on their own.
 */
public enum MailStatus {
    /** Waiting to be claimed once its not-before time has come and attempts remain. */
    QUEUED,
    /** Claimed by a dispatcher that holds its lease; comes back as claimable when the lease expires. */
    SENDING,
    /** Accepted by the SMTP server (reply 250 to the end of DATA). */
    SENT,
    /** Every attempt failed; {@code lastError} says why the last one did. */
    FAILED,
    /** Withdrawn by a caller before it was sent. */
    CANCELLED,
    /** Not sent before its expires-at time or the queue's maximum lifetime; never sent afterwards. */
    EXPIRED,
    /**
     * Held for review: a lease expired after its SMTP transaction may have begun (in doubt whether the
     * server took the mail), and the in-doubt policy says hold rather than resend. An administrator
     * requeues or cancels it.
     */
    HELD,
    /**
     * Never sent: every recipient was on the suppression list when it was enqueued (a hard bounce, a
     * complaint, an unsubscribe or an operator put them there).
     */
    SUPPRESSED;

    /**
     * @return true for the states a mail never leaves on its own (an administrator may still requeue
     *         a FAILED, EXPIRED or HELD mail)
     */
    public boolean isTerminal() {
        return this != QUEUED && this != SENDING;
    }
}
