package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.RecipientStatus;

/**
 * What one attempt came to for one recipient.
 *
 * @param address the envelope recipient, as queued
 * @param status  accepted, refused for good, or to be tried again
 * @param reply   the server's reply to its RCPT TO (or to the DATA that carried it); {@link SmtpReply#NONE}
 *                when none was specific to it
 */
public record RecipientOutcome(String address, RecipientStatus status, SmtpReply reply) {
}
