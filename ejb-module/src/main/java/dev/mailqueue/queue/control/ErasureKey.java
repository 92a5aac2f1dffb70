package dev.mailqueue.queue.control;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * How the suppression list keeps an erased address (issue 51, point 4): not the address, but
 * {@code erased:} and the hex HMAC-SHA-256 (RFC 2104, FIPS 180-4) of the address in lower case, keyed with the
 * setting {@value #SETTING}. The address stays suppressed (the enqueue and the claim look up each recipient's key
 * beside the recipient, {@link Suppressed#scopes}) without being stored; whoever reads the table without the secret
 * cannot test a guessed address against it. The key is never a valid address: an unquoted {@code :} is not allowed
 * in one (RFC 5322 §3.4.1), and the queue refuses quoted local parts. The secret must be the same on every server of
 * the queue; changing it lifts the suppression of every address erased before (they are no longer recognised).
 */
public final class ErasureKey {

    /** The setting that holds the secret; unset, the queue refuses erasures. */
    public static final String SETTING = dev.mailqueue.api.ErasureView.SECRET_SETTING;

    /** The shortest secret taken, characters: 32, so that a guessed secret is no shortcut. */
    public static final int MIN_SECRET_CHARS = dev.mailqueue.api.ErasureView.MIN_SECRET_CHARS;

    /** What every key starts with. */
    public static final String PREFIX = "erased:";

    private static final String ALGORITHM = "HmacSHA256";

    /** Initialised once with the secret; each key is computed on a clone (a Mac is not thread-safe). */
    private final Mac prototype;

    private ErasureKey(String secret) {
        try {
            prototype = Mac.getInstance(ALGORITHM);
            prototype.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + ALGORITHM, e); // every Java SE has it
        }
    }

    /**
     * @param secret the setting's value
     * @return the key made with it
     * @throws IllegalStateException naming {@value #SETTING} when the secret is shorter than
     *                               {@value #MIN_SECRET_CHARS} characters
     */
    public static ErasureKey of(String secret) {
        if (secret == null || secret.length() < MIN_SECRET_CHARS) {
            throw new IllegalStateException("configuration " + SETTING + " must have at least " + MIN_SECRET_CHARS
                    + " characters");
        }
        return new ErasureKey(secret);
    }

    /**
     * The one form in which an erasure names an address: stripped, all in lower case. Broader than the
     * suppression list's own key ({@link Suppressed#normalise}, which keeps a local part's case): an erasure
     * reaches {@code Alice@example.com} and {@code alice@example.com} alike.
     *
     * @param address an address, {@code local@domain}
     * @return it as erasures compare it
     */
    public static String normalise(String address) {
        return address.strip().toLowerCase(Locale.ROOT);
    }

    /**
     * @param address an address, in any case
     * @return {@value #PREFIX} and 64 hex digits: its key on the suppression list, 71 characters
     */
    public String key(String address) {
        try {
            Mac mac = (Mac) prototype.clone();
            return PREFIX + HexFormat.of().formatHex(mac.doFinal(normalise(address).getBytes(StandardCharsets.UTF_8)));
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(ALGORITHM + " cannot be cloned", e); // the JDK's can
        }
    }
}
