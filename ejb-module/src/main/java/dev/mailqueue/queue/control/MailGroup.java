package dev.mailqueue.queue.control;

import java.util.List;

/**
 * What one enqueue request stores: one mail, or with one copy per recipient one mail per recipient,
 * each copy naming the first ({@code COPY_OF}). The first row carries the request's idempotency key.
 *
 * @param mails          1 or more, in order
 * @param copies         true when the mails are copies of one request, one per recipient
 * @param idempotencyKey the caller's key scoped to the caller (at most 512 characters), or null
 * @param fingerprint    a digest of the request (64 hex digits) that a repeat with the same key must
 *                       match, or null without a key
 */
public record MailGroup(List<NewMail> mails, boolean copies, String idempotencyKey, String fingerprint) {

    /** @throws IllegalArgumentException when the group holds no mail */
    public MailGroup {
        if (mails.isEmpty()) {
            throw new IllegalArgumentException("a mail group holds at least one mail");
        }
        mails = List.copyOf(mails);
    }
}
