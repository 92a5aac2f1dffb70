package dev.mailqueue.webhook.boundary;

import dev.mailqueue.api.WebhookDelivery;
import dev.mailqueue.api.WebhookEndpointView;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.Roles;
import dev.mailqueue.webhook.control.WebhookDeliveryStore;
import dev.mailqueue.webhook.control.WebhookEndpoint;
import dev.mailqueue.webhook.control.WebhookEndpointStore;
import dev.mailqueue.webhook.control.WebhookSettings;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The webhook endpoints as an operator sees them: configuration (never the secret) with the health the
 * servers share and where each one's cursor stands in the log, each endpoint's parked deliveries (those that
 * failed, wait behind a failure, or were given up: a delivered event leaves no row), redelivery of one event,
 * and enabling an endpoint that was disabled for failing too long. Role {@code mail-admin}; {@code mail-viewer} may read.
 */
@Stateless
@DeclareRoles({Roles.SENDER, Roles.ADMIN, Roles.VIEWER})
@RolesAllowed(Roles.ADMIN)
public class Webhooks {

    /** Statuses of a parked delivery (a delivered event leaves none). */
    private static final Set<String> STATUSES = Set.of("PENDING", "FAILED");

    @Inject
    WebhookSettings settings;

    @Inject
    WebhookEndpointStore endpoints;

    @Inject
    WebhookDeliveryStore deliveries;

    /** @return every configured endpoint, in configuration order */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<WebhookEndpointView> endpoints() {
        List<WebhookEndpointView> views = new ArrayList<>();
        for (WebhookEndpoint e : settings.endpoints()) {
            WebhookEndpointStore.EndpointState state = endpoints.state(e.name());
            views.add(new WebhookEndpointView(e.name(), e.url(), e.events(), e.campaigns(), state.failingSince(),
                    state.disabledAt(), state.lastSuccessAt(), state.pending(), state.failed(), state.cursor(),
                    state.cursorMovedAt()));
        }
        return views;
    }

    /** @return the endpoint, or empty when none is configured by that name */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public Optional<WebhookEndpointView> endpoint(String name) {
        return endpoints().stream().filter(v -> v.name().equals(name)).findFirst();
    }

    /**
     * @param name   an endpoint
     * @param status PENDING or FAILED, or null for both
     * @param page   from 0
     * @param size   1 to 500
     * @return one page of its parked deliveries, newest event first
     * @throws InvalidFilterException naming a bad status, page or size
     */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<WebhookDelivery> deliveries(String name, String status, int page, int size) throws InvalidFilterException {
        List<FieldError> errors = new ArrayList<>();
        if (status != null && !STATUSES.contains(status)) {
            errors.add(new FieldError("status", "must be PENDING or FAILED (a delivered event leaves no row)"));
        }
        if (page < 0 || page > 1_000_000) {
            errors.add(new FieldError("page", "must be 0 to 1000000"));
        }
        if (size < 1 || size > 500) {
            errors.add(new FieldError("size", "must be 1 to 500"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
        return deliveries.deliveries(name, status, page * size, size);
    }

    /** @return true when the event exists: it is sent to the endpoint again at once (parked anew if need be) */
    public boolean redeliver(String name, long eventId) {
        return endpoint(name).isPresent() && deliveries.redeliver(name, eventId, Instant.now());
    }

    /** @return true when the endpoint was disabled and is enabled now */
    public boolean enable(String name) {
        return endpoints.enable(name);
    }
}
