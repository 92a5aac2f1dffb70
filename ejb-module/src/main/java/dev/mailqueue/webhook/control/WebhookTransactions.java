package dev.mailqueue.webhook.control;

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
    EventCursorStore cursors;

    @Inject
    WebhookDeliveryStore deliveries;

    @Inject
    WebhookEndpointStore endpoints;

    @Inject
    WorkLeaseStore leases;

    @Inject
    WebhookSettings settings;

    /** @see WorkLeaseStore#lease */
    public boolean lease(String work, String owner, Instant now, Instant until) {
        return leases.lease(work, owner, now, until);
    }

    /**
     * @param limit most log rows
     * @return the events after the topic's cursor
     * @see EventCursorStore#read
     */
    public EventCursorStore.Step topicStep(int limit) {
        return cursors.read(EventCursorStore.TOPIC, limit, Instant.now());
    }

    /** @see EventCursorStore#advance */
    public boolean advance(EventCursorStore.Step step) {
        return cursors.advance(step, Instant.now());
    }

    /**
     * @param endpoint an endpoint
     * @param limit    most log rows
     * @return the events after its cursor that it wants
     * @see WebhookDeliveryStore#next
     */
    public WebhookDeliveryStore.EndpointStep next(WebhookEndpoint endpoint, int limit) {
        return deliveries.next(endpoint.name(), endpoint::wants, limit, Instant.now());
    }

    /**
     * Records an endpoint's step from its cursor and, when one of its events failed, what that says of the
     * endpoint, in one transaction.
     *
     * @param failedAt when the try that failed ended, or null when none failed
     * @return true when the endpoint is disabled now
     * @see WebhookDeliveryStore#pass
     * @see WebhookEndpointStore#noteEndpoint
     */
    public boolean passed(String endpoint, EventCursorStore.Step step, List<WebhookDeliveryStore.Parked> parked,
                          Instant failedAt) {
        deliveries.pass(endpoint, step, parked, Instant.now());
        return failedAt != null && endpoints.noteEndpoint(endpoint, false, failedAt, settings.disableAfterMillis());
    }

    /** @see WebhookDeliveryStore#due */
    public List<WebhookDeliveryStore.Due> due(String endpoint, Instant now, int limit) {
        return deliveries.due(endpoint, now, limit);
    }

    /** @see WebhookEndpointStore#state */
    public WebhookEndpointStore.EndpointState state(String endpoint) {
        return endpoints.state(endpoint);
    }

    /**
     * Records a delivered try of a parked delivery: its row goes. What it says of the endpoint is noted once per
     * round ({@link #answered}), not once per event.
     *
     * @see WebhookDeliveryStore#tried
     */
    public void delivered(String endpoint, long eventId, Instant now, Integer httpStatus) {
        deliveries.tried(endpoint, eventId, now, httpStatus, null, null);
    }

    /**
     * Notes that the endpoint took events (the last at {@code now}): it is failing no longer.
     *
     * @see WebhookEndpointStore#noteEndpoint
     */
    public void answered(String endpoint, Instant now) {
        endpoints.noteEndpoint(endpoint, true, now, settings.disableAfterMillis());
    }

    /**
     * Records one failed try of a parked delivery and what it says of the endpoint, in one transaction.
     *
     * @return true when the endpoint is disabled now
     * @see WebhookDeliveryStore#tried
     * @see WebhookEndpointStore#noteEndpoint
     */
    public boolean tried(String endpoint, long eventId, Instant now, Integer httpStatus, String error, Instant nextTry) {
        deliveries.tried(endpoint, eventId, now, httpStatus, error, nextTry);
        return endpoints.noteEndpoint(endpoint, error == null, now, settings.disableAfterMillis());
    }
}
