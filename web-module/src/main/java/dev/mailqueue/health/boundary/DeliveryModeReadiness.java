package dev.mailqueue.health.boundary;

import dev.mailqueue.settings.control.DeliveryMode;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import dev.mailqueue.health.registration.QueueHealthCheck;

/**
 * This server's delivery mode ({@code mailqueue.delivery.mode}), so that a staging server in SANDBOX or
 * REDIRECT mode says so wherever its health is read: {@code mode} and, when redirecting,
 * {@code redirectTo}. Always UP: the mode is a choice, not a fault.
 */
@QueueHealthCheck(QueueHealthCheck.Procedure.READINESS)
@ApplicationScoped
public class DeliveryModeReadiness implements HealthCheck {

    @Inject
    QueueSettings settings;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("delivery-mode").up()
                .withData("mode", settings.deliveryMode().name());
        if (settings.deliveryMode() == DeliveryMode.REDIRECT) {
            response.withData("redirectTo", settings.redirectTo());
        }
        return response.build();
    }
}
