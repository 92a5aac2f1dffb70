package dev.mailqueue.queue.control;

/**
 * A mail as queued: the id the store gave it and its Message-ID.
 *
 * @param id        the row's id
 * @param messageId its RFC 5322 Message-ID
 */
public record Enqueued(long id, String messageId) {
}
