package dev.mailqueue.health.boundary;

import dev.mailqueue.webhook.control.WebhookEndpoint;
import dev.mailqueue.webhook.control.WebhookEndpointStore;
import dev.mailqueue.webhook.control.WebhookSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import dev.mailqueue.health.registration.QueueHealthCheck;

/**
 * The webhook endpoints as the servers share their health: one entry per endpoint, {@code "up"},
 * {@code "failing since ..."} or {@code "DISABLED since ..."} (it failed for
 * {@code mailqueue.webhook.disable-after.ms}; nothing is sent to it until an operator enables it), and the
 * count of disabled endpoints. Like the SMTP accounts' check it stays UP: a receiver that is away must not
 * stop the queue from taking mail; its events wait in the log, behind its cursor.
 */
@QueueHealthCheck(QueueHealthCheck.Procedure.READINESS)
@ApplicationScoped
public class WebhooksReadiness implements HealthCheck {

    @Inject
    WebhookSettings settings;

    @Inject
    WebhookEndpointStore endpoints;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("webhooks").up();
        int disabled = 0;
        for (WebhookEndpoint endpoint : settings.endpoints()) {
            WebhookEndpointStore.EndpointState state = endpoints.state(endpoint.name());
            if (state.disabledAt() != null) {
                disabled++;
                response.withData(endpoint.name(), "DISABLED since " + state.disabledAt());
            } else {
                response.withData(endpoint.name(), state.failingSince() == null ? "up" : "failing since " + state.failingSince());
            }
        }
        return response.withData("endpointsDisabled", disabled).build();
    }
}
