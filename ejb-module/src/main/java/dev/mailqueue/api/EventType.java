package dev.mailqueue.api;

import java.util.Locale;

/**
 * What happened to a mail, as a delivery event reports it (webhooks, {@code GET /api/mails/{id}/events}).
 * Each is written in the same transaction as the change it reports, so none is lost in a crash and none
 * reports a change that rolled back. The wire name is the constant in lower case, e.g. {@code sent}.
 */
public enum EventType {
    /** The relay accepted the mail for a recipient (or, with no recipient named, for all of them). */
    SENT,
    /** An attempt failed for now; the event carries when the next one is due. */
    DEFERRED,
    /** The relay refused the mail (or one recipient) for good during SMTP: a 5yz reply. */
    REFUSED,
    /** A later Delivery Status Notification (RFC 3464) said delivery to a recipient failed. */
    BOUNCED,
    /** A later DSN said delivery to a recipient is delayed; the remote server still tries. */
    DELAYED,
    /** A recipient reported the mail as spam (ARF, RFC 5965). */
    COMPLAINED,
    /** The mail failed: its attempts ran out after temporary failures. */
    FAILED,
    /** The mail's expiry or the queue's maximum lifetime came before it could be sent. */
    EXPIRED,
    /** The mail waits for an operator: its send was in doubt, e.g. the connection broke after DATA. */
    HELD,
    /** An operator (or a campaign cancel) cancelled the mail before it was sent. */
    CANCELLED,
    /** A recipient was on the suppression list, so the mail was not sent to it. */
    SUPPRESSED,
    /** An address used a one-click unsubscribe link (RFC 8058); names the address and the list, no mail. */
    UNSUBSCRIBED;

    /** @return the name used in JSON and in configuration, e.g. {@code sent} */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name a wire name, in any letter case
     * @return the type
     * @throws IllegalArgumentException when no type has that name
     */
    public static EventType of(String name) {
        return valueOf(name.strip().toUpperCase(Locale.ROOT));
    }
}
