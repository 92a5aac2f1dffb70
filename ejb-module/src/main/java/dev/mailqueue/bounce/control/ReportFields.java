package dev.mailqueue.bounce.control;

import dev.mailqueue.address.control.InvalidAddressException;
import dev.mailqueue.address.control.MailboxParser;

import java.util.regex.Pattern;

/**
 * Checks each field of a report against its grammar before it goes anywhere, and clips free text to what
 * the database keeps, so that no value a stranger writes can make recording a report fail. A value that
 * breaks its grammar is dropped (null), never stored half-checked. Stateless.
 */
public final class ReportFields {

    /** Longest free text kept (a diagnostic, a feedback type): the width of REPLY_TEXT and DETAIL, 1,000. */
    public static final int TEXT_CHARS = 1_000;
    /** Longest Message-ID kept, with its angle brackets: the width of MESSAGE_ID and REPORT_KEY, 255. */
    public static final int MESSAGE_ID_CHARS = 255;
    /** Longest feedback type (RFC 5965 §3.5: a token; the registered ones have at most 12 letters). */
    static final int FEEDBACK_TYPE_CHARS = 64;

    /** RFC 3464 §2.3.4 / RFC 3463 §2: class "." subject "." detail, class 2, 4 or 5, 1 to 3 digits each. */
    private static final Pattern STATUS = Pattern.compile("[245]\\.\\d{1,3}\\.\\d{1,3}");
    /** RFC 5322 §3.6.4 msg-id, simplified to what stores safely: printable ASCII without space, in brackets. */
    private static final Pattern MESSAGE_ID = Pattern.compile("<[\\x21-\\x3d\\x3f-\\x7e]+>");
    /** RFC 5965 §3.5 / RFC 2045 token characters. */
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`{|}~-]+");

    private ReportFields() {
    }

    /**
     * @param field a {@code Status} field's value, e.g. {@code 5.1.1 (bad destination mailbox)}
     * @return the status code alone ({@code 5.1.1}) when it follows RFC 3464 §2.3.4; else null
     */
    public static String status(String field) {
        if (field == null) {
            return null;
        }
        String code = field.strip().split("[\\s(;]", 2)[0];
        return code.length() <= 11 && STATUS.matcher(code).matches() ? code : null;
    }

    /**
     * @param address an address as a report names it, without type and angle brackets
     * @return the bare address when it is one the queue could have sent to (RFC 5321 lengths:
     *         {@link MailboxParser}); else null
     */
    public static String address(String address) {
        if (address == null || address.length() > 300) {
            return null;
        }
        try {
            return MailboxParser.parse(address).address();
        } catch (InvalidAddressException e) {
            return null;
        }
    }

    /**
     * @param id a Message-ID field's value
     * @return it, stripped, when it is one angle-bracketed token of printable ASCII of at most
     *         {@value #MESSAGE_ID_CHARS} characters; else null
     */
    public static String messageId(String id) {
        if (id == null) {
            return null;
        }
        String value = id.strip();
        return value.length() <= MESSAGE_ID_CHARS && MESSAGE_ID.matcher(value).matches() ? value : null;
    }

    /**
     * @param type a {@code Feedback-Type} field's value
     * @return the type in lower case when it is a token of at most {@value #FEEDBACK_TYPE_CHARS} characters;
     *         else {@code other} (RFC 5965 §7.3 registers it for what fits nowhere else)
     */
    public static String feedbackType(String type) {
        if (type == null) {
            return "abuse"; // RFC 5965 §3.5: required; its absence is read as the common case
        }
        String value = type.strip();
        return value.length() <= FEEDBACK_TYPE_CHARS && TOKEN.matcher(value).matches()
                ? value.toLowerCase(java.util.Locale.ROOT) : "other";
    }

    /**
     * @param text free text from a report (a diagnostic), may be null
     * @return it with line breaks and other control characters replaced by spaces, runs of white space
     *         collapsed, and clipped to {@value #TEXT_CHARS} characters (never splitting a surrogate pair);
     *         null for null or blank
     */
    public static String text(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder clean = new StringBuilder(Math.min(text.length(), TEXT_CHARS));
        boolean space = false;
        for (int i = 0; i < text.length() && clean.length() < TEXT_CHARS; i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 || c == 0x7f || c >= 0x80 && c <= 0x9f;
            if (control || Character.isWhitespace(c)) {
                space = !clean.isEmpty();
                continue;
            }
            if (space) {
                clean.append(' ');
                space = false;
                if (clean.length() == TEXT_CHARS) {
                    break;
                }
            }
            if (Character.isHighSurrogate(c) && (clean.length() + 2 > TEXT_CHARS || i + 1 >= text.length())) {
                break;
            }
            clean.append(c);
        }
        String result = clean.toString().strip();
        return result.isEmpty() ? null : result;
    }
}
