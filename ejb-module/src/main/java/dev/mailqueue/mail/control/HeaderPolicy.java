package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailLimits;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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
 *   <li>at most {@value MailLimits#HEADERS} fields, and no name twice in different letter case.</li>
 * </ul>
 */
@ApplicationScoped
public class HeaderPolicy {

    /** Header fields the queue writes from the request's own fields or its delivery, lower case. */
    public static final Set<String> RESERVED = Set.of("from", "to", "cc", "bcc", "sender", "reply-to", "subject",
            "date", "message-id", "return-path", "mime-version");

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
