package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.MailQueue;
import jakarta.ejb.Local;

/** The local view of the queue, for code in the same application (the REST resource). */
@Local
public interface MailQueueLocal extends MailQueue {
}
