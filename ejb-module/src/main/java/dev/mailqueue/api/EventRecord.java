package dev.mailqueue.api;

import java.time.Instant;
import java.util.List;

/**
 * One delivery event as a receiver sees it: what a row of the mails' log publishes (the store's {@code LogEvents}), with
 * what its mail says of itself (empty when the mail was deleted since, and for an unsubscribe, which concerns
 * no mail).
 *
 * @param id             the event's id: its log row's id times 128 plus its part (0 to 126 the row's
 *                       per-recipient results in lower-case address order, 127 the row's own event); unique
 *                       within the installation, and a mail's events are numbered in the order they happened
 * @param mailId         the mail, or null for {@link EventType#UNSUBSCRIBED}
 * @param type           what happened
 * @param occurredAt     when
 * @param recipient      the recipient it concerns, or null when it concerns every recipient the change
 *                       settled (see {@link #recipients})
 * @param replyCode      the SMTP (or DSN) reply code, or null
 * @param enhancedStatus the RFC 3463 enhanced status code, or null
 * @param detail         the server's reply text or the reason, or null
 * @param nextAttemptAt  for {@link EventType#DEFERRED}, when the next attempt is due; else null
 * @param messageId      the mail's Message-ID, or null
 * @param reference      the caller's reference, or null
 * @param campaign       the mail's campaign, or null
 * @param tags           the mail's tags
 * @param recipients     the mail's envelope recipients (To, Cc, Bcc), empty when it is unknown
 */
public record EventRecord(long id, Long mailId, EventType type, Instant occurredAt, String recipient, Integer replyCode,
                          String enhancedStatus, String detail, Instant nextAttemptAt, String messageId,
                          String reference, String campaign, List<String> tags, List<String> recipients) {

    /** Copies the lists. */
    public EventRecord {
        tags = List.copyOf(tags);
        recipients = List.copyOf(recipients);
    }
}
