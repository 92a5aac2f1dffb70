package dev.mailqueue.unsubscribe.control;

import dev.mailqueue.server.control.TruncatedHmac;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The token of a one-click unsubscribe link: it names one recipient and one list, and is signed, so that
 * nobody can unsubscribe an address they did not receive mail at (RFC 8058 §3.2: the URI must carry what
 * identifies the recipient and the list, and be hard to forge). Form:
 * {@code base64url(list LF address) "." base64url(HMAC-SHA256(secret, "unsubscribe" LF list LF address)[0..16])},
 * without padding; the 128-bit tag is the truncation NIST SP 800-107 §5.3.4 allows for HMAC. The address is
 * signed as the suppression list keys it (domain in lower case). Stateless: nothing is stored per link,
 * and a link stays valid for as long as the secret does.
 *
 * @param list    the list's name
 * @param address the recipient's address
 */
public record UnsubscribeToken(String list, String address) {

    /** Bytes of the HMAC kept in a token. */
    static final int TAG_BYTES = 16;

    /** Shortest secret accepted: 32 characters, so that a guessed one is as hard as the 128-bit tag. */
    public static final int MIN_SECRET_CHARS = 32;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /**
     * @param secret the server's secret, at least {@value #MIN_SECRET_CHARS} characters
     * @return the token as it goes into the link: URL-safe characters only (A-Z a-z 0-9 - _ .)
     * @throws IllegalArgumentException when the secret is too short
     */
    public String sign(String secret) {
        String payload = list + "\n" + address;
        return ENCODER.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "." + ENCODER.encodeToString(hmac(secret).tag(payload));
    }

    /**
     * @param token  a token from a link, as received; may be anything
     * @param secret the server's secret
     * @return the list and address it names, or empty when it is malformed or its signature does not match
     *         (forged, altered, or signed with another secret); never throws for bad input
     * @throws IllegalArgumentException when the secret is too short
     */
    public static Optional<UnsubscribeToken> verify(String token, String secret) {
        if (token == null) {
            return Optional.empty();
        }
        int dot = token.lastIndexOf('.');
        if (dot <= 0 || dot == token.length() - 1) {
            return Optional.empty();
        }
        String payload;
        byte[] tag;
        try {
            payload = new String(DECODER.decode(token.substring(0, dot)), StandardCharsets.UTF_8);
            tag = DECODER.decode(token.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int lf = payload.indexOf('\n');
        if (lf <= 0 || lf == payload.length() - 1 || !hmac(secret).verifies(payload, tag)) {
            return Optional.empty();
        }
        return Optional.of(new UnsubscribeToken(payload.substring(0, lf), payload.substring(lf + 1)));
    }

    private static TruncatedHmac hmac(String secret) {
        if (secret == null || secret.length() < MIN_SECRET_CHARS) {
            throw new IllegalArgumentException("the unsubscribe secret must have at least " + MIN_SECRET_CHARS + " characters");
        }
        return new TruncatedHmac(secret.getBytes(StandardCharsets.UTF_8), "unsubscribe\n", TAG_BYTES);
    }
}
