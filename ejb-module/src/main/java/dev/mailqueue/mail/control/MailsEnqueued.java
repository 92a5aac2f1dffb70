package dev.mailqueue.mail.control;

/**
 * A CDI event: mails were enqueued in the current transaction. Observers that care about committed
 * mail observe it AFTER_SUCCESS.
 *
 * @param count how many mails (rows), 1 or more
 */
public record MailsEnqueued(int count) {
}
