package dev.mailqueue.http.control;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The user and password of an HTTP {@code Authorization: Basic} header (RFC 7617 §2): the base64
 * (RFC 4648 §4) of {@code user-id ":" password} in UTF-8. A header that is not exactly that (another
 * scheme, bad base64, no colon, an empty user, bytes that are not UTF-8, a control character in the
 * user-id, which RFC 7617 §2 forbids) yields nothing, so the caller is asked to log in again.
 *
 * @param user     the user-id, 1 or more characters, no control characters
 * @param password the password, possibly empty
 */
public record BasicCredentials(String user, String password) {

    /** Longest header value looked at, in characters: far beyond any real user and password. */
    static final int MAX_HEADER_CHARS = 4096;

    /**
     * @param authorization the value of the Authorization header, or null
     * @return the credentials, or empty when the header is missing or malformed
     */
    public static Optional<BasicCredentials> parse(String authorization) {
        if (authorization == null || authorization.length() > MAX_HEADER_CHARS) {
            return Optional.empty();
        }
        String value = authorization.strip();
        int space = value.indexOf(' ');
        if (space < 0 || !value.substring(0, space).equalsIgnoreCase("Basic")) { // RFC 9110 §11.1: scheme ignores case
            return Optional.empty();
        }
        String decoded;
        try {
            byte[] bytes = Base64.getDecoder().decode(value.substring(space + 1).strip());
            decoded = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return Optional.empty();
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return Optional.empty();
        }
        String user = decoded.substring(0, colon);
        if (user.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            return Optional.empty();
        }
        return Optional.of(new BasicCredentials(user, decoded.substring(colon + 1)));
    }

    @Override
    public String toString() {
        return "BasicCredentials[user=" + user + "]"; // never the password, e.g. in a log line
    }
}
