package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.ReportLimits;
import dev.mailqueue.address.control.VerpToken;
import java.util.List;
import java.util.Locale;

/**
 * What one message of the bounce mailbox says, as the bounce intake classified it: the value
 * the bounce store records. A record, not an entity: no table maps to it.
 *
 * @param key               the report's identity for idempotence: its Message-ID, or {@code sha256:<hex>}
 *                          of its bytes when it has none; at most 255 characters
 * @param kind              what kind of report it is
 * @param originalMessageId the Message-ID of the mail it reports on, from the returned headers (with
 *                          angle brackets), or null when it does not say
 * @param verp              the mail (and, for tokens made since per-recipient VERP, the recipient) it reports
 *                          on as named by a VERP token whose MAC verified ({@link VerpToken}), found in the
 *                          report's envelope recipient or in the returned message's {@code Return-Path};
 *                          null when there is no such token. It names the mail before
 *                          {@code originalMessageId} does
 * @param recipients        per recipient what happened, at most {@link ReportLimits#maxRecipients()}; empty
 *                          for {@link Kind#UNRECOGNISED}. Every field was checked against its grammar
 *                          by the bounce intake: addresses are bare addresses of at most 254 octets, a
 *                          status is an RFC 3463 code or null, text is clipped to 1,000 characters
 * @param summary           one line for the log: what was recognised, or why nothing was
 */
public record BounceReport(String key, Kind kind, String originalMessageId, VerpToken.Named verp,
                           List<Recipient> recipients, String summary) {

    public BounceReport {
        recipients = List.copyOf(recipients);
    }

    /** A report without a verified VERP token: its mail is named by {@code originalMessageId} alone. */
    public BounceReport(String key, Kind kind, String originalMessageId, List<Recipient> recipients, String summary) {
        this(key, kind, originalMessageId, null, recipients, summary);
    }

    /** @return the same report, naming the mail (and recipient) of a verified VERP token */
    public BounceReport withVerp(VerpToken.Named named) {
        return new BounceReport(key, kind, originalMessageId, named, recipients, summary + "; VERP names mail "
                + named.mailId() + named.recipient().map(r -> ", recipient " + r).orElse(" (no recipient)"));
    }

    /** The kinds of report; the names are stored in BOUNCE_REPORT.KIND. */
    public enum Kind {
        /** A DSN with at least one recipient whose {@code Action} is {@code failed}. */
        FAILED,
        /** A DSN whose recipients are only {@code delayed} (or delivered): delivery goes on. */
        DELAYED,
        /** A complaint: an ARF feedback report (RFC 5965) of a recipient who marked the mail as spam. */
        COMPLAINT,
        /** Anything else: auto-replies, vacation notices, malformed reports; never acts on a recipient. */
        UNRECOGNISED
    }

    /** A DSN's {@code Action} field (RFC 3464 §2.3.3), or {@link #COMPLAINED} for a complaint. */
    public enum Action {
        FAILED, DELAYED, DELIVERED, RELAYED, EXPANDED, COMPLAINED;

        /** @return the action named by a DSN field value, case-insensitive; null for an unknown one */
        public static Action of(String field) {
            if (field == null) {
                return null;
            }
            try {
                return valueOf(field.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    /**
     * One recipient of a report.
     *
     * @param address    the recipient as the mail addressed it: the {@code Original-Recipient} when the
     *                   report gives one, else the {@code Final-Recipient} (or the complaint's
     *                   {@code Original-Rcpt-To}); a bare address. Null only for a complaint that does not
     *                   name its recipient but carries a VERP token, which names it
     * @param finalRecipient the {@code Final-Recipient} (may differ after forwarding), or the same address
     * @param action     what happened
     * @param status     the enhanced status code ({@code 5.1.1}, RFC 3463), or null
     * @param diagnostic the remote server's reply ({@code Diagnostic-Code} without its type, e.g.
     *                   {@code 550 5.1.1 <x@y>: Recipient address rejected}), or for a complaint its
     *                   {@code Feedback-Type}; may be null
     */
    public record Recipient(String address, String finalRecipient, Action action, String status, String diagnostic) {

        /** @return true for a failure with a 5.x.x status: the address will not work (RFC 3463 §3.1) */
        public boolean isPermanent() {
            return action == Action.FAILED && status != null && status.startsWith("5");
        }

        /** @return the three-digit SMTP reply code at the start of the diagnostic, or null */
        public Integer replyCode() {
            if (diagnostic == null || diagnostic.length() < 3) {
                return null;
            }
            String code = diagnostic.substring(0, 3);
            boolean digits = code.chars().allMatch(Character::isDigit)
                    && (diagnostic.length() == 3 || !Character.isDigit(diagnostic.charAt(3)));
            int value = digits ? Integer.parseInt(code) : 0;
            return value >= 200 && value <= 599 ? value : null;
        }
    }
}
