package dev.mailqueue.webhook.control;

import dev.mailqueue.queue.control.EventStore;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.List;

/**
 * The webhook pass's database work, each call a short transaction of its own (REQUIRES_NEW): no
 * transaction is open while a request is on the wire.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class WebhookTransactions {

    @Inject
    EventStore events;

    @Inject
    WebhookSettings settings;

    /** @see EventStore#lease */
    public boolean lease(String work, String owner, Instant now, Instant until) {
        return events.lease(work, owner, now, until);
    }

    /** @see EventStore#publish */
    public int publish(int limit, Instant now) {
        return events.publish(limit, settings::endpointsFor, now);
    }

    /** @see EventStore#unpublished */
    public List<dev.mailqueue.queue.control.EventRecord> unpublished(int limit) {
        return events.unpublished(limit);
    }

    /** @see EventStore#publish(List, java.util.function.BiFunction, Instant) */
    public int publish(List<Long> ids, Instant now) {
        return events.publish(ids, settings::endpointsFor, now);
    }

    /** @see EventStore#due */
    public List<EventStore.Due> due(String endpoint, Instant now, int limit) {
        return events.due(endpoint, now, limit);
    }

    /** @see EventStore#state */
    public EventStore.EndpointState state(String endpoint) {
        return events.state(endpoint);
    }

    /**
     * Records a delivered try: its delivery row only. What it says of the endpoint is noted once per round
     * ({@link #answered}), not once per event.
     *
     * @see EventStore#tried
     */
    public void delivered(String endpoint, long eventId, Instant now, Integer httpStatus) {
        events.tried(endpoint, eventId, now, httpStatus, null, null);
    }

    /**
     * Notes that the endpoint took events (the last at {@code now}): it is failing no longer.
     *
     * @see EventStore#noteEndpoint
     */
    public void answered(String endpoint, Instant now) {
        events.noteEndpoint(endpoint, true, now, settings.disableAfterMillis());
    }

    /**
     * Records one try and what it says of the endpoint, in one transaction.
     *
     * @return true when the endpoint is disabled now
     * @see EventStore#tried
     * @see EventStore#noteEndpoint
     */
    public boolean tried(String endpoint, long eventId, Instant now, Integer httpStatus, String error, Instant nextTry) {
        events.tried(endpoint, eventId, now, httpStatus, error, nextTry);
        return events.noteEndpoint(endpoint, error == null, now, settings.disableAfterMillis());
    }
}
