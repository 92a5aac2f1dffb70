package dev.mailqueue.bounce.control;

import dev.mailqueue.settings.control.ReportLimits;
import dev.mailqueue.queue.control.BounceReport;
import dev.mailqueue.address.control.VerpAddress;
import dev.mailqueue.address.control.VerpToken;
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
 * The mail a report is about, and its recipient, are named by the VERP token of the report's envelope
 * recipient when it has one whose MAC verifies ({@link VerpToken}): an MTA addresses its report to the mail's
 * envelope sender, {@code bounces+<token>@example.com}, and the delivering MTA records that address in
 * {@code Delivered-To} or {@code X-Original-To} (Postfix writes both; they are read first, as {@code To}
 * may have been rewritten). A complaint's feedback loop may write to another address; its returned message
 * then still carries the token in its {@code Return-Path}, which is read last. Without a token the mail is
 * named by the {@code Message-ID} of the returned message or headers (the report's third part,
 * {@code message/rfc822} or {@code text/rfc822-headers}); what the store does with that is its decision.
 * <p>
 * What a stranger can make this cost is bounded ({@link ReportLimits}): the message's MIME structure is
 * measured first ({@link MimeStructure}) and one with too many or too deeply nested parts is not parsed
 * further; at most {@link ReportLimits#maxRecipients()} per-recipient blocks are read. Every field is checked
 * against its grammar and clipped ({@link ReportFields}) before it leaves this class.
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
    static final int KEY_CHARS = ReportFields.MESSAGE_ID_CHARS;

    /** The summary's prefix of a message refused for its structure ({@link MimeStructure}). */
    public static final String REFUSED = "refused: ";

    private BounceClassifier() {
    }

    /** The header fields that carry a report's envelope recipient, the most reliable first. */
    private static final String[] ENVELOPE_RECIPIENT = {"Delivered-To", "X-Original-To", "To"};

    /**
     * As {@link #classify(Session, byte[], VerpToken, ReportLimits)} without VERP and with the default limits.
     */
    public static BounceReport classify(Session session, byte[] raw) {
        return classify(session, raw, null, ReportLimits.DEFAULT);
    }

    /**
     * As {@link #classify(Session, byte[], VerpToken, ReportLimits)} with the default limits.
     */
    public static BounceReport classify(Session session, byte[] raw, VerpToken verp) {
        return classify(session, raw, verp, ReportLimits.DEFAULT);
    }

    /**
     * @param session a mail session, for its MIME settings only (the bounce mailbox's)
     * @param raw     the message as the mailbox holds it (RFC 5322 bytes), or its first
     *                {@link ReportLimits#maxMessageBytes()}
     * @param verp    verifies VERP tokens; null when no secret is configured (tokens are then ignored)
     * @param limits  what the message may cost
     * @return what it reports, with {@link BounceReport#verp()} set when it carries a token that verifies;
     *         never null. A message over the structure limits is UNRECOGNISED with a summary that starts
     *         with {@value #REFUSED}
     */
    public static BounceReport classify(Session session, byte[] raw, VerpToken verp, ReportLimits limits) {
        String key = "sha256:" + sha256(raw);
        String refused = MimeStructure.problem(raw, limits);
        if (refused != null) {
            return unrecognised(key, REFUSED + refused);
        }
        MimeMessage message;
        try {
            message = new MimeMessage(session, new ByteArrayInputStream(raw));
            String messageId = ReportFields.messageId(message.getMessageID());
            if (messageId != null) {
                key = messageId;
            }
        } catch (MessagingException | RuntimeException e) {
            return unrecognised(key, "malformed: " + e.getClass().getSimpleName() + ": " + ReportFields.text(e.getMessage()));
        }
        Parsed parsed = classifyContent(key, message, limits);
        BounceReport report = parsed.report;
        if (verp == null || report.kind() == BounceReport.Kind.UNRECOGNISED && !parsed.anonymousComplaint) {
            return report;
        }
        Optional<VerpToken.Named> named = token(message, verp).or(() -> returnPathToken(parsed.returned, verp));
        if (named.isEmpty()) {
            return report;
        }
        if (parsed.anonymousComplaint) { // the token names whom the complaint is about
            report = new BounceReport(report.key(), BounceReport.Kind.COMPLAINT, report.originalMessageId(),
                    List.of(new BounceReport.Recipient(null, null, BounceReport.Action.COMPLAINED, null,
                            "Feedback-Type: " + parsed.feedbackType)), "complaint (" + parsed.feedbackType + ")");
        }
        return report.withVerp(named.get());
    }

    /** The report read from the content, and what the VERP lookup needs of it. */
    private record Parsed(BounceReport report, InternetHeaders returned, boolean anonymousComplaint, String feedbackType) {

        Parsed(BounceReport report) {
            this(report, null, false, null);
        }
    }

    private static Optional<VerpToken.Named> token(MimeMessage message, VerpToken verp) {
        try {
            for (String field : ENVELOPE_RECIPIENT) {
                String[] values = message.getHeader(field);
                for (String value : values == null ? new String[0] : values) {
                    Optional<VerpToken.Named> named = tokenIn(value, verp);
                    if (named.isPresent()) {
                        return named;
                    }
                }
            }
        } catch (MessagingException | RuntimeException e) {
            // headers that cannot be read name no mail by VERP
        }
        return Optional.empty();
    }

    private static Optional<VerpToken.Named> returnPathToken(InternetHeaders returned, VerpToken verp) {
        if (returned == null) {
            return Optional.empty();
        }
        String[] values = returned.getHeader("Return-Path");
        return values == null || values.length == 0 ? Optional.empty() : tokenIn(values[0], verp);
    }

    /** @return the first verified token among the comma-separated addresses of a header value (at most 100) */
    private static Optional<VerpToken.Named> tokenIn(String value, VerpToken verp) {
        if (value == null || value.length() > 26_000) {
            return Optional.empty();
        }
        String[] addresses = value.split(",", 101);
        for (int i = 0; i < Math.min(addresses.length, 100); i++) {
            Optional<VerpToken.Named> named = VerpAddress.token(addresses[i]).flatMap(verp::read);
            if (named.isPresent()) {
                return named;
            }
        }
        return Optional.empty();
    }

    private static Parsed classifyContent(String key, MimeMessage message, ReportLimits limits) {
        try {
            ContentType type = new ContentType(message.getContentType());
            if (!type.match("multipart/report")) {
                return new Parsed(unrecognised(key, "not a report: " + ReportFields.text(type.getBaseType())));
            }
            String reportType = lower(type.getParameter("report-type"));
            MimeMultipart parts = new MimeMultipart(message.getDataHandler().getDataSource());
            if ("delivery-status".equals(reportType) || "global-delivery-status".equals(reportType)) {
                return deliveryStatus(key, parts, limits);
            }
            if ("feedback-report".equals(reportType)) {
                return complaint(key, parts);
            }
            return new Parsed(unrecognised(key, "a report of type " + ReportFields.text(reportType)));
        } catch (MessagingException | IOException | RuntimeException e) {
            return new Parsed(unrecognised(key, "malformed: " + e.getClass().getSimpleName() + ": "
                    + ReportFields.text(e.getMessage())));
        }
    }

    private static Parsed deliveryStatus(String key, MimeMultipart parts, ReportLimits limits)
            throws MessagingException, IOException {
        BodyPart status = part(parts, "message/delivery-status", "message/global-delivery-status");
        InternetHeaders returned = returnedHeaders(parts);
        if (status == null) {
            return new Parsed(unrecognised(key, "a delivery-status report without its message/delivery-status part"));
        }
        List<BounceReport.Recipient> recipients = new ArrayList<>();
        int blocks = 0;
        try (InputStream in = content(status)) {
            new InternetHeaders(in); // the per-message fields (Reporting-MTA, Arrival-Date): not needed
            while (in.available() > 0 && blocks < limits.maxRecipients()) {
                InternetHeaders block = new InternetHeaders(in);
                blocks++;
                BounceReport.Recipient recipient = recipient(block);
                if (recipient != null) {
                    recipients.add(recipient);
                }
            }
        }
        String original = originalMessageId(returned);
        if (recipients.isEmpty()) {
            return new Parsed(new BounceReport(key, BounceReport.Kind.UNRECOGNISED, original, List.of(),
                    "a delivery-status report that names no recipient with an action"), returned, false, null);
        }
        boolean failed = recipients.stream().anyMatch(r -> r.action() == BounceReport.Action.FAILED);
        BounceReport.Kind kind = failed ? BounceReport.Kind.FAILED : BounceReport.Kind.DELAYED;
        return new Parsed(new BounceReport(key, kind, original, recipients, recipients.size() + " recipient(s): "
                + recipients.stream().limit(5).map(r -> r.address() + " " + lower(r.action().name()) + " " + r.status()).toList()
                + (recipients.size() > 5 ? " ..." : "")), returned, false, null);
    }

    /**
     * @return the recipient of one per-recipient block, or null when it lacks a valid address or a known
     *         action
     */
    private static BounceReport.Recipient recipient(InternetHeaders block) {
        String finalRecipient = address(block.getHeader("Final-Recipient", null));
        String original = address(block.getHeader("Original-Recipient", null));
        BounceReport.Action action = BounceReport.Action.of(block.getHeader("Action", null));
        if (finalRecipient == null || action == null) {
            return null;
        }
        return new BounceReport.Recipient(original != null ? original : finalRecipient, finalRecipient, action,
                ReportFields.status(block.getHeader("Status", null)),
                ReportFields.text(typed(block.getHeader("Diagnostic-Code", null))));
    }

    private static Parsed complaint(String key, MimeMultipart parts) throws MessagingException, IOException {
        BodyPart feedback = part(parts, "message/feedback-report");
        InternetHeaders returned = returnedHeaders(parts);
        if (feedback == null) {
            return new Parsed(unrecognised(key, "a feedback report without its message/feedback-report part"));
        }
        InternetHeaders fields;
        try (InputStream in = content(feedback)) {
            fields = new InternetHeaders(in);
        }
        String feedbackType = ReportFields.feedbackType(fields.getHeader("Feedback-Type", null));
        String recipient = address(fields.getHeader("Original-Rcpt-To", null));
        String original = originalMessageId(returned);
        if (recipient == null) {
            return new Parsed(new BounceReport(key, BounceReport.Kind.UNRECOGNISED, original, List.of(),
                    "a complaint that does not name its recipient (Original-Rcpt-To)"), returned, true, feedbackType);
        }
        return new Parsed(new BounceReport(key, BounceReport.Kind.COMPLAINT, original,
                List.of(new BounceReport.Recipient(recipient, recipient, BounceReport.Action.COMPLAINED, null,
                        "Feedback-Type: " + feedbackType)),
                "complaint (" + feedbackType + ") by " + recipient), returned, false, feedbackType);
    }

    /** @return the header fields of the returned message or headers, or null when the report has none */
    private static InternetHeaders returnedHeaders(MimeMultipart parts) throws MessagingException, IOException {
        BodyPart returned = part(parts, "message/rfc822", "text/rfc822-headers", "message/rfc822-headers",
                "message/global", "message/global-headers");
        if (returned == null) {
            return null;
        }
        try (InputStream in = returned.getInputStream()) {
            return new InternetHeaders(in);
        }
    }

    /** @return the Message-ID of the returned message or headers when it is a valid one, or null */
    private static String originalMessageId(InternetHeaders returned) {
        return returned == null ? null : ReportFields.messageId(returned.getHeader("Message-ID", null));
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

    /**
     * @return the address of "rfc822; user@example.com" (or "utf-8; ..."), without angle brackets, when it
     *         is a valid address ({@link ReportFields#address}); or null
     */
    static String address(String typedAddress) {
        String value = typed(typedAddress);
        if (value == null) {
            return null;
        }
        if (value.startsWith("<") && value.endsWith(">")) {
            value = value.substring(1, value.length() - 1).strip();
        }
        return value.isEmpty() || value.indexOf('@') < 1 ? null : ReportFields.address(value);
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
