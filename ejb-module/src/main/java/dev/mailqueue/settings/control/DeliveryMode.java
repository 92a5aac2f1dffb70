package dev.mailqueue.settings.control;

/**
 * What a server does with the mails it claims ({@code mailqueue.delivery.mode}, per server). Whatever the
 * mode, addresses at the simulator domain are never sent to ({@code SimulatorAddress}).
 */
public enum DeliveryMode {
    /** Mail goes to its recipients through the account's SMTP server (the default). */
    LIVE,
    /**
     * Nothing leaves the server: each mail is claimed, composed and checked as in live mode, then recorded
     * as sent with a reply that says it was not; its events are produced as in production. For staging.
     */
    SANDBOX,
    /**
     * Each mail goes to one address ({@code mailqueue.delivery.redirect-to}) instead of its recipients,
     * through the account's SMTP server; the recipients stay on the record and in an {@code X-Original-To}
     * header field. For staging systems whose mail a person wants to read.
     */
    REDIRECT
}
