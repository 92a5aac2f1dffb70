package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailQueue;
import dev.mailqueue.api.EventRecord;
import jakarta.ejb.Local;

import java.util.List;

/** The local view of the queue, for code in the same application (the REST resource). */
@Local
public interface MailQueueLocal extends MailQueue {

    /**
     * @param id a mail's id
     * @return its delivery events, oldest first (the same a webhook receives)
     * @throws MailNotFoundException when there is no such mail, or the caller may not see it (a sender sees
     *                               only the mail it enqueued)
     */
    List<EventRecord> events(long id) throws MailNotFoundException;
}
