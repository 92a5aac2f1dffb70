package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;

import java.util.List;

/**
 * A mail as queued: the id the store gave it and its Message-ID.
 *
 * @param id         the row's id
 * @param messageId  its RFC 5322 Message-ID
 * @param status     QUEUED, or SUPPRESSED when every recipient was on the suppression list
 * @param suppressed its recipients that were on the suppression list (never sent to), as given; often empty
 */
public record Enqueued(long id, String messageId, MailStatus status, List<String> suppressed) {

    public Enqueued {
        suppressed = List.copyOf(suppressed);
    }

    /** A mail queued as it was asked, none of its recipients suppressed. */
    public Enqueued(long id, String messageId) {
        this(id, messageId, MailStatus.QUEUED, List.of());
    }
}
