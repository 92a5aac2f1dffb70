package dev.mailqueue.bounce.control;

import dev.mailqueue.server.control.TruncatedHmac;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The token of a VERP envelope sender (variable envelope return path): it names one mail by its id and
 * proves that this queue made it, so a Delivery Status Notification that comes back to
 * {@code bounces+<token>@example.com} names its mail even when it returns no usable Message-ID, and a
 * report to a made-up token names nothing.
 * <p>
 * Form: {@code <mail id in base 36>-<MAC in hex>}, lower case only (some MTAs fold the case of local parts;
 * RFC 5321 §2.4 lets them), at most {@value #MAX_CHARS} characters. The MAC is HMAC-SHA256 (RFC 2104) under
 * the server secret {@code mailqueue.bounce.verp-secret} over {@code mailqueue-verp-v1:<mail id>}, truncated
 * to its first {@value #MAC_BYTES} octets: 80 bits, the least RFC 2104 §5 allows. A forger who does not hold
 * the secret guesses a valid token for a chosen mail with a chance of 2<sup>-80</sup> per try.
 * <p>
 * Thread safe; never logs or returns the secret (its {@link #toString()} does not show it).
 */
public final class VerpToken {

    /** Octets of the MAC kept: 10 (80 bits, RFC 2104 §5: "not less than 80 bits"). */
    public static final int MAC_BYTES = 10;
    /** Fewest octets of secret accepted: 32, the length of an SHA-256 output (RFC 2104 §3). */
    public static final int MIN_SECRET_BYTES = 32;
    /** Longest token: 13 base-36 digits of the largest mail id, a hyphen, 20 hex digits of MAC. */
    public static final int MAX_CHARS = 13 + 1 + 2 * MAC_BYTES;

    private static final String CONTEXT = "mailqueue-verp-v1:";
    private static final Pattern FORM = Pattern.compile("([0-9a-z]{1,13})-([0-9a-f]{" + 2 * MAC_BYTES + "})");

    private final TruncatedHmac hmac;

    /**
     * @param secret the server secret, at least {@value #MIN_SECRET_BYTES} octets in UTF-8 (e.g. the 64 hex
     *               digits of {@code openssl rand -hex 32})
     * @throws IllegalArgumentException when it is null or shorter; the message does not contain it
     */
    public VerpToken(String secret) {
        byte[] bytes = secret == null ? new byte[0] : secret.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("the VERP secret must be at least " + MIN_SECRET_BYTES
                    + " octets long (RFC 2104 §3), was " + bytes.length);
        }
        hmac = new TruncatedHmac(bytes, CONTEXT, MAC_BYTES);
    }

    /**
     * @param mailId a mail's id, 0 or more
     * @return its token, e.g. {@code 2n9c-5f0e3a8b1c2d4e6f7a9b}; at most {@value #MAX_CHARS} characters
     * @throws IllegalArgumentException when the id is negative
     */
    public String of(long mailId) {
        if (mailId < 0) {
            throw new IllegalArgumentException("a mail id is 0 or more, was " + mailId);
        }
        return Long.toString(mailId, 36) + "-" + HexFormat.of().formatHex(hmac.tag(Long.toString(mailId)));
    }

    /**
     * @param token a token as found in an address, in any case
     * @return the mail it names when its MAC verifies; empty for anything else (malformed, altered, made
     *         with another secret)
     */
    public OptionalLong mailId(String token) {
        if (token == null) {
            return OptionalLong.empty();
        }
        Matcher m = FORM.matcher(token.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        long mailId;
        try {
            mailId = Long.parseLong(m.group(1), 36);
        } catch (NumberFormatException e) { // 13 base-36 digits above the largest long
            return OptionalLong.empty();
        }
        byte[] given = HexFormat.of().parseHex(m.group(2));
        return hmac.verifies(Long.toString(mailId), given) ? OptionalLong.of(mailId) : OptionalLong.empty();
    }

    @Override
    public String toString() {
        return "VerpToken[HMAC-SHA256/" + MAC_BYTES * 8 + "]";
    }
}
