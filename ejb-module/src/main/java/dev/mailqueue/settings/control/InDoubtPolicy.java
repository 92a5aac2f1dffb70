package dev.mailqueue.settings.control;

/**
 * What becomes of a mail whose send is in doubt: its SMTP transaction had reached DATA when its claimer
 * died, or the server's answer to the end of DATA never came, so nobody knows whether the server took
 * it. Configured with {@code mailqueue.delivery.in-doubt}.
 */
public enum InDoubtPolicy {
    /**
     * Send it again (the default), with the same Message-ID so receivers and their de-duplication see
     * one message: at least once rather than at most once, the usual choice for mail (RFC 5321 §6.1
     * asks a server not to lose a mail it has accepted; a duplicate is the lesser harm). The in-doubt
     * attempt counts against attempts remaining; a mail left with none is held instead.
     */
    RESEND,
    /** Set it HELD for an administrator to requeue or cancel: at most once. */
    HOLD
}
