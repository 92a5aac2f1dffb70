package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;

import java.util.List;

/**
 * The rules of an idempotency key, and how to tell that a racing duplicate hit its unique constraint.
 * A key is 1 to 255 printable ASCII characters (33 to 126, plus space inside), the shape of the IETF
 * draft "The Idempotency-Key HTTP Header Field" (draft-ietf-httpapi-idempotency-key-header), whose
 * examples are UUIDs. Keys are scoped to the user who enqueued ({@link #scoped}).
 */
public final class IdempotencyKeys {

    /** The longest key, in characters. */
    public static final int MAX_LENGTH = 255;

    private IdempotencyKeys() {
    }

    /**
     * @param key a caller's key, not null
     * @throws InvalidMailException naming field {@code idempotencyKey} when it is empty, longer than 255
     *                              characters, or holds a character outside printable ASCII
     */
    public static void check(String key) throws InvalidMailException {
        String problem = null;
        if (key.isBlank()) {
            problem = "must not be blank";
        } else if (key.length() > MAX_LENGTH) {
            problem = "must be at most " + MAX_LENGTH + " characters";
        } else if (!key.chars().allMatch(c -> c >= 32 && c <= 126)) {
            problem = "must be printable ASCII (no line breaks or control characters)";
        }
        if (problem != null) {
            throw new InvalidMailException(List.of(new FieldError("idempotencyKey", problem)));
        }
    }

    /**
     * @param user the caller's principal name, at most 256 characters
     * @param key  a key that passed {@link #check(String)}
     * @return the key as stored: scoped to the user (separated by a tab, which a key cannot hold), so one
     *         user's key never finds, or blocks, another user's mail
     */
    public static String scoped(String user, String key) {
        return user + '\t' + key;
    }
}
