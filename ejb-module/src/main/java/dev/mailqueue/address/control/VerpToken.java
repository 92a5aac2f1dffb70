package dev.mailqueue.address.control;

import dev.mailqueue.server.control.TruncatedHmac;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The token of a VERP envelope sender (variable envelope return path): it names one recipient of one mail
 * and proves that this queue made it, so a Delivery Status Notification or a complaint that comes back to
 * {@code bounces+<token>@example.com} names its mail and its recipient even when it returns no usable
 * Message-ID or address, and a report to a made-up token names nothing. Each recipient's copy carries its
 * own token (one SMTP transaction per recipient), so a recipient who forges a report can name only
 * themself.
 * <p>
 * Form: {@code <mail id in base 36>.<recipient position in base 36>-<MAC in hex>}, lower case only (some MTAs
 * fold the case of local parts; RFC 5321 §2.4 lets them), at most {@value #MAX_CHARS} characters. The
 * position counts the mail's recipients To, then Cc, then Bcc, from 0. The MAC is HMAC-SHA256 (RFC 2104) under
 * the server secret {@code mailqueue.bounce.verp-secret} over {@code mailqueue-verp-v2:<mail id>.<position>},
 * truncated to its first {@value #MAC_BYTES} octets: 80 bits, the least RFC 2104 §5 allows. A forger who does
 * not hold the secret guesses a valid token with a chance of 2<sup>-80</sup> per try.
 * <p>
 * Tokens of the first form, {@code <mail id>-<MAC>} over {@code mailqueue-verp-v1:<mail id>}, which named the
 * mail only, are still read ({@link Named#recipient()} empty) for the reports of mail sent before.
 * <p>
 * Thread safe; never logs or returns the secret (its {@link #toString()} does not show it).
 */
public final class VerpToken {

    /** Octets of the MAC kept: 10 (80 bits, RFC 2104 §5: "not less than 80 bits"). */
    public static final int MAC_BYTES = 10;
    /** Fewest octets of secret accepted: 32, the length of an SHA-256 output (RFC 2104 §3). */
    public static final int MIN_SECRET_BYTES = 32;
    /** Most recipient positions a token can name: 36², two base-36 digits (a mail has at most 100 recipients). */
    public static final int MAX_RECIPIENTS = 36 * 36;
    /** Longest token: 13 base-36 digits of the largest mail id, a dot, 2 digits of position, a hyphen, 20 hex digits. */
    public static final int MAX_CHARS = 13 + 1 + 2 + 1 + 2 * MAC_BYTES;

    private static final Pattern FORM = Pattern.compile("([0-9a-z]{1,13})(?:\\.([0-9a-z]{1,2}))?-([0-9a-f]{" + 2 * MAC_BYTES + "})");

    private final TruncatedHmac perRecipient;
    private final TruncatedHmac perMail;

    /**
     * What a verified token names.
     *
     * @param mailId    the mail
     * @param recipient the recipient's position among the mail's To, Cc and Bcc, from 0; empty for a token of
     *                  the first form, which named the mail only
     */
    public record Named(long mailId, Optional<Integer> recipient) {
    }

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
        perRecipient = new TruncatedHmac(bytes, "mailqueue-verp-v2:", MAC_BYTES);
        perMail = new TruncatedHmac(bytes, "mailqueue-verp-v1:", MAC_BYTES);
    }

    /**
     * @param mailId    a mail's id, 0 or more
     * @param recipient the recipient's position among the mail's To, Cc and Bcc, 0 to {@value #MAX_RECIPIENTS} - 1
     * @return its token, e.g. {@code 2n9c.1-5f0e3a8b1c2d4e6f7a9b}; at most {@value #MAX_CHARS} characters
     * @throws IllegalArgumentException when the id is negative or the position out of range
     */
    public String of(long mailId, int recipient) {
        if (mailId < 0 || recipient < 0 || recipient >= MAX_RECIPIENTS) {
            throw new IllegalArgumentException("a mail id is 0 or more and a recipient position 0 to "
                    + (MAX_RECIPIENTS - 1) + ", were " + mailId + " and " + recipient);
        }
        String named = mailId + "." + recipient;
        return Long.toString(mailId, 36) + "." + Integer.toString(recipient, 36) + "-"
                + HexFormat.of().formatHex(perRecipient.tag(named));
    }

    /**
     * @param mailId a mail's id, 0 or more
     * @return the token of the first form, which names the mail and not a recipient: for a mail sent as one
     *         SMTP transaction to every recipient (a redirected mail)
     * @throws IllegalArgumentException when the id is negative
     */
    public String ofMail(long mailId) {
        if (mailId < 0) {
            throw new IllegalArgumentException("a mail id is 0 or more, was " + mailId);
        }
        return Long.toString(mailId, 36) + "-" + HexFormat.of().formatHex(perMail.tag(Long.toString(mailId)));
    }

    /**
     * @param token a token as found in an address, in any case
     * @return what it names when its MAC verifies; empty for anything else (malformed, altered, made with
     *         another secret)
     */
    public Optional<Named> read(String token) {
        if (token == null || token.length() > MAX_CHARS + 2) {
            return Optional.empty();
        }
        Matcher m = FORM.matcher(token.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return Optional.empty();
        }
        long mailId;
        try {
            mailId = Long.parseLong(m.group(1), 36);
        } catch (NumberFormatException e) { // 13 base-36 digits above the largest long
            return Optional.empty();
        }
        byte[] given = HexFormat.of().parseHex(m.group(3));
        if (m.group(2) == null) {
            return perMail.verifies(Long.toString(mailId), given)
                    ? Optional.of(new Named(mailId, Optional.empty())) : Optional.empty();
        }
        int recipient = Integer.parseInt(m.group(2), 36);
        return perRecipient.verifies(mailId + "." + recipient, given)
                ? Optional.of(new Named(mailId, Optional.of(recipient))) : Optional.empty();
    }

    @Override
    public String toString() {
        return "VerpToken[HMAC-SHA256/" + MAC_BYTES * 8 + "]";
    }
}
