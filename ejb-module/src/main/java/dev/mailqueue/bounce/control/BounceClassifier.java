package dev.mailqueue.bounce.control;

import jakarta.mail.BodyPart;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.InternetHeaders;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads one message of the bounce mailbox and says what it reports. Recognised are:
 * <ul>
 *   <li>Delivery Status Notifications (RFC 3464): {@code multipart/report; report-type=delivery-status}
 *       (or {@code global-delivery-status}, RFC 6533), whose {@code message/delivery-status} part holds
 *       a block of per-message fields and one block per recipient ({@code Final-Recipient},
 *       {@code Original-Recipient}, {@code Action}, {@code Status}, {@code Diagnostic-Code});</li>
 *   <li>complaints (ARF, RFC 5965): {@code multipart/report; report-type=feedback-report}, whose
 *       {@code message/feedback-report} part names the complained-of recipient
 *       ({@code Original-Rcpt-To}).</li>
 * </ul>
 * The mail a report is about is named by the VERP token of the report's envelope recipient, when it
 * has one whose MAC verifies ({@link VerpToken}): an MTA addresses its report to the mail's envelope
 * sender, {@code bounces+<token>@example.com}, and the delivering MTA records that address in
 * {@code Delivered-To} or {@code X-Original-To} (Postfix writes both; they are read first, as {@code To}
 * may have been rewritten). Else, and always as well, by the {@code Message-ID} of the returned message
 * or headers (the report's third part, {@code message/rfc822} or {@code text/rfc822-headers}).
 * <p>
 * The header blocks are parsed with Jakarta Mail's {@link InternetHeaders}, as Angus Mail's own
 * {@code DeliveryStatus} does; that class is not used because it needs Angus implementation packages
 * that Liberty keeps from applications unless they ask for third-party APIs.
 * <p>
 * Never throws: a message that cannot be read is {@link BounceReport.Kind#UNRECOGNISED}, with the
 * reason in its summary. Thread safe (no state).
 */
public final class BounceClassifier {

    /** Longest report key: the width of BOUNCE_REPORT.REPORT_KEY. */
    static final int KEY_CHARS = 255;

    private BounceClassifier() {
    }

    /** The header fields that carry a report's envelope recipient, the most reliable first. */
    private static final String[] ENVELOPE_RECIPIENT = {"Delivered-To", "X-Original-To", "To"};

    /**
     * As {@link #classify(Session, byte[], VerpToken)} without VERP: the mail is named by Message-ID only.
     */
    public static BounceReport classify(Session session, byte[] raw) {
        return classify(session, raw, null);
    }

    /**
     * @param session a mail session, for its MIME settings only (the bounce mailbox's)
     * @param raw     the message as the mailbox holds it (RFC 5322 bytes)
     * @param verp    verifies VERP tokens; null when no secret is configured (tokens are then ignored)
     * @return what it reports, with {@link BounceReport#verpMailId()} set when its envelope recipient carries
     *         a token that verifies; never null
     */
    public static BounceReport classify(Session session, byte[] raw, VerpToken verp) {
        BounceReport report = classifyContent(session, raw);
        if (verp == null || report.recipients().isEmpty()) {
            return report;
        }
        try {
            MimeMessage message = new MimeMessage(session, new ByteArrayInputStream(raw));
            for (String field : ENVELOPE_RECIPIENT) {
                String[] values = message.getHeader(field);
                for (String value : values == null ? new String[0] : values) {
                    for (String address : value.split(",")) {
                        Optional<String> token = VerpAddress.token(address);
                        OptionalLong mailId = token.map(verp::mailId).orElse(OptionalLong.empty());
                        if (mailId.isPresent()) {
                            return new BounceReport(report.key(), report.kind(), report.originalMessageId(),
                                    mailId.getAsLong(), report.recipients(),
                                    report.summary() + "; VERP names mail " + mailId.getAsLong());
                        }
                    }
                }
            }
        } catch (MessagingException | RuntimeException e) {
            // the content was read above; headers that cannot be read here just name no mail by VERP
        }
        return report;
    }

    private static BounceReport classifyContent(Session session, byte[] raw) {
        String key = "sha256:" + sha256(raw);
        try {
            MimeMessage message = new MimeMessage(session, new ByteArrayInputStream(raw));
            String messageId = message.getMessageID();
            if (messageId != null && !messageId.isBlank() && messageId.strip().length() <= KEY_CHARS) {
                key = messageId.strip();
            }
            ContentType type = new ContentType(message.getContentType());
            if (!type.match("multipart/report")) {
                return unrecognised(key, "not a report: " + type.getBaseType());
            }
            String reportType = lower(type.getParameter("report-type"));
            MimeMultipart parts = new MimeMultipart(message.getDataHandler().getDataSource());
            if ("delivery-status".equals(reportType) || "global-delivery-status".equals(reportType)) {
                return deliveryStatus(key, parts);
            }
            if ("feedback-report".equals(reportType)) {
                return complaint(key, parts);
            }
            return unrecognised(key, "a report of type " + reportType);
        } catch (MessagingException | IOException | RuntimeException e) {
            return unrecognised(key, "malformed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static BounceReport deliveryStatus(String key, MimeMultipart parts) throws MessagingException, IOException {
        BodyPart status = part(parts, "message/delivery-status", "message/global-delivery-status");
        if (status == null) {
            return unrecognised(key, "a delivery-status report without its message/delivery-status part");
        }
        List<BounceReport.Recipient> recipients = new ArrayList<>();
        try (InputStream in = content(status)) {
            new InternetHeaders(in); // the per-message fields (Reporting-MTA, Arrival-Date): not needed
            while (in.available() > 0) {
                InternetHeaders block = new InternetHeaders(in);
                BounceReport.Recipient recipient = recipient(block);
                if (recipient != null) {
                    recipients.add(recipient);
                }
            }
        }
        String original = originalMessageId(parts);
        if (recipients.isEmpty()) {
            return new BounceReport(key, BounceReport.Kind.UNRECOGNISED, original, List.of(),
                    "a delivery-status report that names no recipient with an action");
        }
        boolean failed = recipients.stream().anyMatch(r -> r.action() == BounceReport.Action.FAILED);
        BounceReport.Kind kind = failed ? BounceReport.Kind.FAILED : BounceReport.Kind.DELAYED;
        return new BounceReport(key, kind, original, recipients, recipients.size() + " recipient(s): "
                + recipients.stream().map(r -> r.address() + " " + lower(r.action().name()) + " " + r.status()).toList());
    }

    /** @return the recipient of one per-recipient block, or null when it lacks an address or a known action */
    private static BounceReport.Recipient recipient(InternetHeaders block) {
        String finalRecipient = address(block.getHeader("Final-Recipient", null));
        String original = address(block.getHeader("Original-Recipient", null));
        BounceReport.Action action = BounceReport.Action.of(block.getHeader("Action", null));
        if (finalRecipient == null || action == null) {
            return null;
        }
        String status = block.getHeader("Status", null);
        if (status != null) {
            status = status.strip().split("[\\s(]", 2)[0]; // "5.1.1 (bad destination mailbox)" -> "5.1.1"
        }
        return new BounceReport.Recipient(original != null ? original : finalRecipient, finalRecipient, action,
                status, typed(block.getHeader("Diagnostic-Code", null)));
    }

    private static BounceReport complaint(String key, MimeMultipart parts) throws MessagingException, IOException {
        BodyPart feedback = part(parts, "message/feedback-report");
        if (feedback == null) {
            return unrecognised(key, "a feedback report without its message/feedback-report part");
        }
        InternetHeaders fields;
        try (InputStream in = content(feedback)) {
            fields = new InternetHeaders(in);
        }
        String type = fields.getHeader("Feedback-Type", null);
        String recipient = address(fields.getHeader("Original-Rcpt-To", null));
        String original = originalMessageId(parts);
        if (recipient == null) {
            return new BounceReport(key, BounceReport.Kind.UNRECOGNISED, original, List.of(),
                    "a complaint that does not name its recipient (Original-Rcpt-To)");
        }
        String feedbackType = type == null ? "abuse" : type.strip();
        return new BounceReport(key, BounceReport.Kind.COMPLAINT, original,
                List.of(new BounceReport.Recipient(recipient, recipient, BounceReport.Action.COMPLAINED, null,
                        "Feedback-Type: " + feedbackType)),
                "complaint (" + feedbackType + ") by " + recipient);
    }

    /** @return the Message-ID of the returned message or headers, or null */
    private static String originalMessageId(MimeMultipart parts) throws MessagingException, IOException {
        BodyPart returned = part(parts, "message/rfc822", "text/rfc822-headers", "message/rfc822-headers",
                "message/global", "message/global-headers");
        if (returned == null) {
            return null;
        }
        try (InputStream in = returned.getInputStream()) {
            String id = new InternetHeaders(in).getHeader("Message-ID", null);
            return id == null || id.isBlank() ? null : id.strip();
        }
    }

    /** @return the part's decoded content, read whole, so that its end is known exactly */
    private static InputStream content(BodyPart part) throws MessagingException, IOException {
        try (InputStream in = part.getInputStream()) {
            return new ByteArrayInputStream(in.readAllBytes());
        }
    }

    private static BodyPart part(MimeMultipart parts, String... types) throws MessagingException {
        for (int i = 0; i < parts.getCount(); i++) {
            BodyPart part = parts.getBodyPart(i);
            for (String type : types) {
                if (part.isMimeType(type)) {
                    return part;
                }
            }
        }
        return null;
    }

    /** @return the address of "rfc822; user@example.com" (or "utf-8; ..."), without angle brackets, or null */
    static String address(String typedAddress) {
        String value = typed(typedAddress);
        if (value == null) {
            return null;
        }
        if (value.startsWith("<") && value.endsWith(">")) {
            value = value.substring(1, value.length() - 1).strip();
        }
        return value.isEmpty() || value.indexOf('@') < 1 ? null : value;
    }

    /** @return the value of a "type; value" field without its type (RFC 3464 §2.1.2), unfolded; or null */
    private static String typed(String field) {
        if (field == null) {
            return null;
        }
        String value = field.replaceAll("\\r?\\n[ \\t]+", " ").strip();
        int semicolon = value.indexOf(';');
        value = (semicolon >= 0 ? value.substring(semicolon + 1) : value).strip();
        return value.isEmpty() ? null : value;
    }

    private static BounceReport unrecognised(String key, String why) {
        return new BounceReport(key, BounceReport.Kind.UNRECOGNISED, null, List.of(), why);
    }

    private static String lower(String value) {
        return value == null ? null : value.toLowerCase(Locale.ROOT);
    }

    private static String sha256(byte[] raw) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(raw));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
