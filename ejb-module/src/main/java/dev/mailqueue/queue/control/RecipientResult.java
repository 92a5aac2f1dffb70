package dev.mailqueue.queue.control;

import dev.mailqueue.queue.entity.RecipientStatus;

/**
 * What one attempt came to for one recipient.
 *
 * @param address        the envelope recipient, as queued
 * @param status         accepted, refused for good, or to be tried again
 * @param replyCode      the server's reply code to its RCPT TO (or to the DATA that carried it), or null
 * @param replyText      that reply's text, or null
 * @param enhancedStatus its RFC 3463 enhanced status code, e.g. {@code 5.1.1}, or null
 */
public record RecipientResult(String address, RecipientStatus status, Integer replyCode, String replyText,
                              String enhancedStatus) {
}
