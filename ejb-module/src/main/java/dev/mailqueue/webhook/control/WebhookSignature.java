package dev.mailqueue.webhook.control;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * Signs a webhook request as the Standard Webhooks specification (standardwebhooks.com, "Signature
 * scheme") says: the signed content is {@code <webhook-id>.<webhook-timestamp>.<body>}, the signature
 * HMAC-SHA256 of it under the endpoint's secret, sent base64-encoded as {@code v1,<signature>} in the
 * {@code webhook-signature} header, with {@code webhook-id} and {@code webhook-timestamp} (seconds since
 * the epoch). A secret is written {@code whsec_<base64 of the key>}, the form the specification's
 * libraries read. A receiver recomputes the signature, compares it in constant time, and refuses a
 * timestamp far from its clock (replays) and an id it has seen (redeliveries are sent with the same id).
 */
public final class WebhookSignature {

    /** The prefix of a secret written as text. */
    public static final String SECRET_PREFIX = "whsec_";

    /** Shortest key, bytes: 192 bits, the specification's lower bound. */
    public static final int MIN_KEY_BYTES = 24;

    /** Longest key, bytes. */
    public static final int MAX_KEY_BYTES = 64;

    private final byte[] key;

    /**
     * @param key the endpoint's key, {@value #MIN_KEY_BYTES} to {@value #MAX_KEY_BYTES} bytes
     * @throws IllegalArgumentException when it is shorter or longer
     */
    public WebhookSignature(byte[] key) {
        if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("a webhook secret must be " + MIN_KEY_BYTES + " to " + MAX_KEY_BYTES
                    + " bytes, got " + key.length);
        }
        this.key = key.clone();
    }

    /**
     * @param secret {@code whsec_} and the key in base64
     * @return the key
     * @throws IllegalArgumentException when the prefix is missing, the rest is not base64, or the key is
     *                                  not {@value #MIN_KEY_BYTES} to {@value #MAX_KEY_BYTES} bytes long;
     *                                  the message never shows the secret
     */
    public static byte[] key(String secret) {
        if (!secret.startsWith(SECRET_PREFIX)) {
            throw new IllegalArgumentException("must be " + SECRET_PREFIX + " followed by the key in base64"
                    + " (e.g. " + SECRET_PREFIX + "$(openssl rand -base64 32))");
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()).strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the part after " + SECRET_PREFIX + " is not base64");
        }
        if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("the key must be " + MIN_KEY_BYTES + " to " + MAX_KEY_BYTES
                    + " bytes, got " + key.length);
        }
        return key;
    }

    /**
     * @param id        the webhook-id
     * @param timestamp the webhook-timestamp, seconds since the epoch
     * @param body      the request body, exactly as sent
     * @return the webhook-signature value, {@code v1,<base64>}
     */
    public String sign(String id, long timestamp, String body) {
        return "v1," + Base64.getEncoder().encodeToString(mac(id + "." + timestamp + "." + body));
    }

    /**
     * @param id        the webhook-id received
     * @param timestamp the webhook-timestamp received
     * @param body      the body received
     * @param header    the webhook-signature received: one or more space-separated {@code v1,<base64>}
     * @return true when one of the signatures is this key's, compared in constant time
     */
    public boolean verify(String id, long timestamp, String body, String header) {
        byte[] expected = mac(id + "." + timestamp + "." + body);
        for (String candidate : header.strip().split(" +")) {
            if (!candidate.startsWith("v1,")) {
                continue;
            }
            try {
                if (MessageDigest.isEqual(expected, Base64.getDecoder().decode(candidate.substring(3)))) {
                    return true;
                }
            } catch (IllegalArgumentException notBase64) {
                // another candidate may still match
            }
        }
        return false;
    }

    private byte[] mac(String content) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(content.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
