package dev.mailqueue.unsubscribe.control;

import dev.mailqueue.server.control.TruncatedHmac;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * The token of a one-click unsubscribe link: it names one recipient and one list until an expiry, and is
 * signed, so that nobody can unsubscribe an address they did not receive mail at (RFC 8058 §3.2: the URI must
 * carry what identifies the recipient and the list, and be hard to forge). Form:
 * {@code base64url(list LF address LF expiry) "." base64url(HMAC-SHA256(secret, "unsubscribe-v2" LF list LF
 * address LF expiry)[0..16])}, without padding, the expiry in seconds since the epoch; the 128-bit tag is the
 * truncation NIST SP 800-107 §5.3.4 allows for HMAC. The address is signed as the suppression list keys it
 * (domain in lower case). Stateless: nothing is stored per link.
 * <p>
 * Links of the first form, {@code base64url(list LF address)} signed under {@code "unsubscribe" LF}, carried no
 * expiry; they are still honoured, as they are in mail already sent (changing the secret voids them, with
 * every other link).
 *
 * @param list      the list's name
 * @param address   the recipient's address
 * @param expiresAt when the link stops working; {@link Instant#MAX} for a link of the first form
 */
public record UnsubscribeToken(String list, String address, Instant expiresAt) {

    /** Bytes of the HMAC kept in a token. */
    static final int TAG_BYTES = 16;

    /** Shortest secret accepted: 32 characters, so that a guessed one is as hard as the 128-bit tag. */
    public static final int MIN_SECRET_CHARS = 32;

    /** Longest token read: far above the longest a list (64) and an address (254 octets) make. */
    static final int MAX_TOKEN_CHARS = 1_024;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /**
     * @param secret the server's secret, at least {@value #MIN_SECRET_CHARS} characters
     * @return the token as it goes into the link: URL-safe characters only (A-Z a-z 0-9 - _ .)
     * @throws IllegalArgumentException when the secret is too short
     */
    public String sign(String secret) {
        String payload = list + "\n" + address + "\n" + expiresAt.getEpochSecond();
        return ENCODER.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "."
                + ENCODER.encodeToString(hmac(secret, true).tag(payload));
    }

    /**
     * @param token  a token from a link, as received; may be anything
     * @param secret the server's secret
     * @param now    the time it is checked at
     * @return the list and address it names, or empty when it is malformed, its signature does not match
     *         (forged, altered, or signed with another secret), or it expired; never throws for bad input
     * @throws IllegalArgumentException when the secret is too short
     */
    public static Optional<UnsubscribeToken> verify(String token, String secret, Instant now) {
        if (token == null || token.length() > MAX_TOKEN_CHARS) {
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
        String[] fields = payload.split("\n", -1);
        if (fields.length < 2 || fields.length > 3 || fields[0].isEmpty() || fields[1].isEmpty()) {
            return Optional.empty();
        }
        boolean expiring = fields.length == 3;
        if (!hmac(secret, expiring).verifies(payload, tag)) {
            return Optional.empty();
        }
        Instant expiresAt = Instant.MAX;
        if (expiring) {
            try {
                expiresAt = Instant.ofEpochSecond(Long.parseLong(fields[2]));
            } catch (NumberFormatException | java.time.DateTimeException e) {
                return Optional.empty();
            }
            if (!now.isBefore(expiresAt)) {
                return Optional.empty();
            }
        }
        return Optional.of(new UnsubscribeToken(fields[0], fields[1], expiresAt));
    }

    private static TruncatedHmac hmac(String secret, boolean expiring) {
        if (secret == null || secret.length() < MIN_SECRET_CHARS) {
            throw new IllegalArgumentException("the unsubscribe secret must have at least " + MIN_SECRET_CHARS + " characters");
        }
        return new TruncatedHmac(secret.getBytes(StandardCharsets.UTF_8), expiring ? "unsubscribe-v2\n" : "unsubscribe\n",
                TAG_BYTES);
    }
}
