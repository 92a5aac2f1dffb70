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

    /**
     * @param limit most log rows
     * @return the events after the topic's cursor
     * @see EventStore#read
     */
    public EventStore.Step topicStep(int limit) {
        return events.read(EventStore.TOPIC, limit, Instant.now());
    }

    /** @see EventStore#advance */
    public boolean advance(EventStore.Step step) {
        return events.advance(step, Instant.now());
    }

    /**
     * @param endpoint an endpoint
     * @param limit    most log rows
     * @return the events after its cursor that it wants
     * @see EventStore#next
     */
    public EventStore.EndpointStep next(WebhookEndpoint endpoint, int limit) {
        return events.next(endpoint.name(), endpoint::wants, limit, Instant.now());
    }

    /**
     * Records an endpoint's step from its cursor and, when one of its events failed, what that says of the
     * endpoint, in one transaction.
     *
     * @param failedAt when the try that failed ended, or null when none failed
     * @return true when the endpoint is disabled now
     * @see EventStore#pass
     * @see EventStore#noteEndpoint
     */
    public boolean passed(String endpoint, EventStore.Step step, List<EventStore.Parked> parked, Instant failedAt) {
        events.pass(endpoint, step, parked, Instant.now());
        return failedAt != null && events.noteEndpoint(endpoint, false, failedAt, settings.disableAfterMillis());
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
     * Records a delivered try of a parked delivery: its row goes. What it says of the endpoint is noted once per
     * round ({@link #answered}), not once per event.
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
     * Records one failed try of a parked delivery and what it says of the endpoint, in one transaction.
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
