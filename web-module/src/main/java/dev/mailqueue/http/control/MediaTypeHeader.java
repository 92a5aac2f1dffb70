package dev.mailqueue.http.control;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code Content-Type} value parsed strictly by RFC 9110 §8.3.1: {@code type "/" subtype *( OWS ";"
 * OWS parameter )}, where type, subtype and parameter names are tokens (§5.6.2) and a parameter value
 * is a token or a quoted-string (§5.6.4). Type, subtype and parameter names are compared without
 * regard to case (§8.3.1); a parameter given twice makes the value malformed.
 *
 * @param type       the top-level type, lower case
 * @param subtype    the subtype, lower case
 * @param parameters parameter name (lower case) to value, in the order given
 */
public record MediaTypeHeader(String type, String subtype, Map<String, String> parameters) {

    /** RFC 9110 §5.6.2 tchar, besides letters and digits. */
    private static final String TCHAR_SYMBOLS = "!#$%&'*+-.^_`|~";

    /**
     * @param value a header value, may be null
     * @return the media type, or empty when the value is missing or not a media type
     */
    public static Optional<MediaTypeHeader> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        Cursor in = new Cursor(value);
        in.skipSpace();
        String type = in.token();
        if (type.isEmpty() || !in.take('/')) {
            return Optional.empty();
        }
        String subtype = in.token();
        if (subtype.isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        in.skipSpace();
        while (in.take(';')) {
            in.skipSpace();
            String name = in.token().toLowerCase(Locale.ROOT);
            if (name.isEmpty() || !in.take('=')) {
                return Optional.empty();
            }
            Optional<String> parameterValue = in.peek() == '"' ? in.quoted()
                    : Optional.of(in.token()).filter(token -> !token.isEmpty());
            if (parameterValue.isEmpty() || parameters.put(name, parameterValue.get()) != null) {
                return Optional.empty();
            }
            in.skipSpace();
        }
        if (!in.atEnd()) {
            return Optional.empty();
        }
        return Optional.of(new MediaTypeHeader(type.toLowerCase(Locale.ROOT), subtype.toLowerCase(Locale.ROOT),
                Map.copyOf(parameters)));
    }

    /**
     * @return whether this is {@code application/json} (RFC 8259 §11) with no parameter but an optional
     *         {@code charset=utf-8} (JSON is UTF-8, RFC 8259 §8.1)
     */
    public boolean isJson() {
        if (!type.equals("application") || !subtype.equals("json")) {
            return false;
        }
        return parameters.isEmpty() || parameters.size() == 1
                && "utf-8".equalsIgnoreCase(parameters.getOrDefault("charset", ""));
    }

    /**
     * @return whether this is {@code message/rfc822} (RFC 2046 §5.2.1: a complete RFC 5322 message; the type
     *         defines no parameters, so none is taken)
     */
    public boolean isMessage() {
        return type.equals("message") && subtype.equals("rfc822") && parameters.isEmpty();
    }

    static boolean isTokenChar(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
                || c < 128 && c >= 0 && TCHAR_SYMBOLS.indexOf(c) >= 0;
    }

    /** A position in the header value. */
    private static final class Cursor {
        private final String text;
        private int at;

        Cursor(String text) {
            this.text = text;
        }

        int peek() {
            return at < text.length() ? text.charAt(at) : -1;
        }

        boolean atEnd() {
            return at == text.length();
        }

        boolean take(char c) {
            if (peek() == c) {
                at++;
                return true;
            }
            return false;
        }

        void skipSpace() {
            while (peek() == ' ' || peek() == '\t') {
                at++;
            }
        }

        String token() {
            int start = at;
            while (at < text.length() && isTokenChar(text.charAt(at))) {
                at++;
            }
            return text.substring(start, at);
        }

        /** RFC 9110 §5.6.4: DQUOTE *( qdtext / quoted-pair ) DQUOTE, qdtext without controls but HTAB. */
        Optional<String> quoted() {
            StringBuilder value = new StringBuilder();
            at++; // the opening quote
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return Optional.of(value.toString());
                }
                if (c == '\\') {
                    if (at == text.length()) {
                        return Optional.empty();
                    }
                    c = text.charAt(at++);
                }
                if (c < 0x20 && c != '\t' || c == 0x7f) {
                    return Optional.empty();
                }
                value.append(c);
            }
            return Optional.empty();
        }
    }
}
