package dev.mailqueue.server.control;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * HMAC-SHA256 (RFC 2104) under one server secret, cut to its first bytes (RFC 2104 §5 allows truncation to
 * no fewer than 80 bits), with a context label in front of every message so that a tag made for one purpose
 * (a VERP token, an unsubscribe link) never verifies for another under the same secret. Thread safe: a
 * {@link Mac} is made per call.
 */
public final class TruncatedHmac {

    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final String context;
    private final int bytes;

    /**
     * @param secret  the secret's octets, 1 or more; callers require their own minimum
     * @param context what the tags are for, e.g. {@code "mailqueue-verp-v1:"}; put before each message
     * @param bytes   octets of the HMAC kept, 10 (80 bits) to 32
     * @throws IllegalArgumentException when the secret is empty or {@code bytes} is out of range
     * @throws IllegalStateException    when the Java platform lacks HmacSHA256 (every Java SE has it)
     */
    public TruncatedHmac(byte[] secret, String context, int bytes) {
        if (secret == null || secret.length == 0 || bytes < 10 || bytes > 32) {
            throw new IllegalArgumentException("an HMAC needs a secret and keeps 10 to 32 octets, asked " + bytes);
        }
        this.key = new SecretKeySpec(secret, ALGORITHM);
        this.context = context;
        this.bytes = bytes;
        tag(""); // fails here, at configuration time, if the platform lacks the algorithm
    }

    /**
     * @param message the text to sign; its UTF-8 octets after the context's
     * @return the first {@code bytes} octets of HMAC-SHA256(secret, context + message)
     */
    public byte[] tag(String message) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return Arrays.copyOf(mac.doFinal((context + message).getBytes(StandardCharsets.UTF_8)), bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is required of every Java platform", e);
        }
    }

    /**
     * @param message the text that was signed
     * @param tag     the tag that came with it; may be anything
     * @return true when the tag is this message's, compared in constant time
     */
    public boolean verifies(String message, byte[] tag) {
        return tag != null && MessageDigest.isEqual(tag, tag(message));
    }

    @Override
    public String toString() {
        return "TruncatedHmac[HMAC-SHA256/" + bytes * 8 + ", " + context + "]"; // never the secret
    }
}
