package dev.mailqueue.api;

import java.time.Instant;

/**
 * One parked delivery of an event to a webhook endpoint: one that failed, waits behind a failed one, or was
 * given up (a delivered event leaves none).
 *
 * @param eventId       the event's id ({@link EventRecord#id()})
 * @param mailId        the event's mail, or null when it concerns none or the mail is gone
 * @param type          the event's type; null when the event is gone
 * @param status        PENDING (parked: waiting, or backing off after {@code attempts} failed tries) or FAILED
 *                      (given up)
 * @param attempts      failed tries so far, 0 or more
 * @param createdAt     when it was parked
 * @param nextAttemptAt when it is tried next (PENDING)
 * @param lastAttemptAt when it was last tried, or null
 * @param httpStatus    the endpoint's HTTP status at the last try, or null (no answer)
 * @param lastError     why the last try failed, or null
 */
public record WebhookDelivery(long eventId, Long mailId, EventType type, String status, int attempts, Instant createdAt,
                              Instant nextAttemptAt, Instant lastAttemptAt, Integer httpStatus, String lastError) {
}
