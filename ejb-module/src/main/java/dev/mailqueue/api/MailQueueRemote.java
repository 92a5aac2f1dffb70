package dev.mailqueue.api;

import jakarta.ejb.Remote;

/**
 * The remote view of the queue, for other applications on this or another server. Look it up as
 * {@code java:global/mailqueue/mailqueue-ejb/Mails!dev.mailqueue.api.MailQueueRemote}. Arguments and
 * results are passed by value.
 */
@Remote
public interface MailQueueRemote extends MailQueue {
}
