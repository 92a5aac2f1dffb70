package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.validation.PlainTextValidator;
import dev.mailqueue.dkim.control.DkimKeys;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The rules for custom header fields, so that a caller can add {@code List-Unsubscribe} or
 * {@code X-Campaign} but can neither inject further fields nor override what the queue writes:
 * <ul>
 *   <li>a name is 1 to 76 printable US-ASCII characters (33 to 126) other than the colon
 *       (RFC 5322 §3.6.8, field-name = 1*ftext);</li>
 *   <li>a value is at most 998 characters with no CR, LF or other control character except tab
 *       (RFC 5322 §2.1.1 and §2.2: a field's body ends at CRLF, so a CR or LF would start a new field);</li>
 *   <li>names the queue owns are refused in any letter case (RFC 5322 field names are
 *       case-insensitive, §1.2.2): {@link #RESERVED} and every {@code Content-*} (RFC 2045 MIME
 *       fields of the body structure the queue builds);</li>
 *   <li>so are the names only mail servers write, which would let a caller forge a sender, a route or
 *       an authentication verdict past the From allow-list: {@link #SERVER_WRITTEN} and every
 *       {@code Resent-*} and {@code ARC-*} ({@link #RESERVED_PREFIXES});</li>
 *   <li>at most {@value MailLimits#HEADERS} fields, and no name twice in different letter case.</li>
 * </ul>
 */
@ApplicationScoped
public class HeaderPolicy {

    /** Header fields the queue writes from the request's own fields or its delivery, lower case. */
    public static final Set<String> RESERVED = Set.of("from", "to", "cc", "bcc", "sender", "reply-to", "subject",
            "date", "message-id", "return-path", "mime-version");

    /**
     * Header fields only mail servers write, lower case: a caller who could set them could claim a sender,
     * a route or a verdict the From allow-list never checked. Trace fields (RFC 5322 §3.6.7:
     * Received; Return-Path above), authentication results (RFC 8601 Authentication-Results, RFC 7208
     * Received-SPF), signatures (RFC 6376 DKIM-Signature, DomainKey-Signature of RFC 4870), and delivery fields (Delivered-To, Original-Recipient of RFC 3798, X-Original-To).
     */
    public static final Set<String> SERVER_WRITTEN = Set.of("received", "authentication-results", "received-spf",
            "dkim-signature", "domainkey-signature", "delivered-to", "original-recipient", "x-original-to");

    /**
     * Prefixes of names refused in any letter case: {@code content-} (RFC 2045 MIME fields of the body
     * structure the queue builds), {@code resent-} (RFC 5322 §3.6.6: they claim who resent the mail and
     * are read as its sender), {@code arc-} (RFC 8617 Authenticated Received Chain, written by servers).
     */
    public static final List<String> RESERVED_PREFIXES = List.of("content-", "resent-", "arc-");

    /**
     * The fields of a raw message that only mail servers write, lower case: {@link #SERVER_WRITTEN} and
     * {@code Return-Path} (RFC 5321 §4.4: written at final delivery), but neither {@code Received} (every relay on
     * a message's path adds one, RFC 5321 §4.4, the queue's own SMTP submission listener too; it names no author)
     * nor {@code DKIM-Signature} (a sender may sign its own domains; one of a domain the queue signs for and the
     * sender may not use is refused by {@link #checkRaw}).
     */
    static final Set<String> RAW_SERVER_WRITTEN = Set.of("return-path", "authentication-results", "received-spf",
            "domainkey-signature", "delivered-to", "original-recipient", "x-original-to");

    @Inject
    DkimKeys dkim;

    /**
     * The header policy of raw MIME: the fields a raw message may not carry, with the reasons JSON mail's custom
     * fields are refused for: {@link #RAW_SERVER_WRITTEN}, every {@code Resent-*} and {@code ARC-*}, and a
     * {@code DKIM-Signature} whose {@code d=} tag (RFC 6376 §3.5) names a domain this installation signs for
     * ({@link DkimKeys}) that the sender may not use: a signature the queue made for another tenant's message would
     * vouch for this one. A sender may sign its own domains (the queue then adds its signature, docs/dkim.md), and
     * a signature of a domain the queue does not sign for is the sender's affair: the From allow-list already
     * keeps a sender from replaying another domain's signed message, since RFC 6376 §5.4 makes every signature
     * cover From. {@code Content-*} and the fields the queue writes for JSON mail (From, Subject, ...) are the
     * message's own.
     *
     * @param message  a parsed raw message
     * @param mayUse   whether the sender may send as an address of a domain (its From allow-list), given the
     *                 domain in lower case
     * @return the broken rules, each named {@code message.<Name>} as the field is written; empty when all pass
     */
    List<FieldError> checkRaw(RawMessage message, Predicate<String> mayUse) {
        List<FieldError> errors = new ArrayList<>();
        for (RawMessage.Field field : message.fields()) {
            String lower = field.name().toLowerCase(Locale.ROOT);
            if (RAW_SERVER_WRITTEN.contains(lower) || lower.startsWith("resent-") || lower.startsWith("arc-")) {
                errors.add(new FieldError("message." + field.name(), "is a trace, authentication or resent field that"
                        + " only mail servers write; it cannot be given in a raw message"));
            } else if (lower.equals("dkim-signature")) {
                String domain = signingDomain(field.value());
                if (domain != null && dkim != null && dkim.forDomain(domain).isPresent() && !mayUse.test(domain)) {
                    errors.add(new FieldError("message." + field.name(), "names d=" + domain + ", a domain this queue"
                            + " signs for that you may not send as"));
                }
            }
        }
        return errors;
    }

    /**
     * @param value a DKIM-Signature field's value: a tag list (RFC 6376 §3.2), {@code tag=value} separated by
     *              semicolons, with folding white space anywhere
     * @return the value of its {@code d=} tag without white space, lower case; null when it has none
     */
    static String signingDomain(String value) {
        for (String tag : value.split(";")) {
            int equals = tag.indexOf('=');
            if (equals > 0 && tag.substring(0, equals).strip().equals("d")) {
                return tag.substring(equals + 1).replaceAll("[ \t\r\n]", "").toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /**
     * @param headers custom header fields of one request, may be null
     * @return the broken rules, named {@code headers} (count) or {@code headers.<name>}; empty when all pass
     */
    public List<FieldError> check(Map<String, String> headers) {
        List<FieldError> errors = new ArrayList<>();
        if (headers == null || headers.isEmpty()) {
            return errors;
        }
        if (headers.size() > MailLimits.HEADERS) {
            errors.add(new FieldError("headers", "at most " + MailLimits.HEADERS + " header fields, got " + headers.size()));
        }
        Set<String> seen = new HashSet<>();
        for (Map.Entry<String, String> header : headers.entrySet()) {
            String name = header.getKey();
            String field = "headers." + name;
            if (!isFieldName(name)) {
                errors.add(new FieldError(field, "is not a header field name: 1 to " + MailLimits.HEADER_NAME_CHARS
                        + " printable ASCII characters without colon or space (RFC 5322 3.6.8)"));
                continue;
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (RESERVED.contains(lower) || lower.startsWith("content-")) {
                errors.add(new FieldError(field, "is set by the queue and cannot be given as a custom header"));
            } else if (SERVER_WRITTEN.contains(lower) || RESERVED_PREFIXES.stream().anyMatch(lower::startsWith)) {
                errors.add(new FieldError(field, "is a trace, authentication or resent field that only mail servers"
                        + " write; it cannot be given as a custom header"));
            } else if (!seen.add(lower)) {
                errors.add(new FieldError(field, "is given twice (header names ignore letter case)"));
            }
            checkValue(field, header.getValue(), errors);
        }
        return errors;
    }

    private static void checkValue(String field, String value, List<FieldError> errors) {
        if (value == null) {
            errors.add(new FieldError(field, "must have a value"));
        } else if (value.length() > MailLimits.HEADER_VALUE_CHARS) {
            errors.add(new FieldError(field, "must be at most " + MailLimits.HEADER_VALUE_CHARS
                    + " characters (RFC 5322 2.1.1)"));
        } else if (value.chars().anyMatch(c -> (c < 0x20 && c != '\t') || c == 0x7f)) {
            errors.add(new FieldError(field, "must not contain CR, LF or other control characters"));
        } else if (PlainTextValidator.problemWith(value, false) != null) {
            errors.add(new FieldError(field, PlainTextValidator.problemWith(value, false)));
        }
    }

    /** RFC 5322 §3.6.8: field-name = 1*ftext, ftext = %d33-57 / %d59-126; here also at most 76 characters. */
    static boolean isFieldName(String name) {
        if (name == null || name.isEmpty() || name.length() > MailLimits.HEADER_NAME_CHARS) {
            return false;
        }
        return name.chars().allMatch(c -> c >= 33 && c <= 126 && c != ':');
    }
}
