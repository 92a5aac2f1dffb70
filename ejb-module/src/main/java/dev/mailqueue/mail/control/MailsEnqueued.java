package dev.mailqueue.mail.control;

import java.time.Instant;

/**
 * A CDI event: mails were enqueued in the current transaction. Observers that care about committed
 * mail observe it AFTER_SUCCESS.
 *
 * @param count       how many mails (rows), 1 or more
 * @param earliestDue the earliest not-before time among them
 */
public record MailsEnqueued(int count, Instant earliestDue) {
}
