package dev.mailqueue.health.boundary;

import dev.mailqueue.dispatch.control.DispatchHeartbeat;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import dev.mailqueue.settings.control.QueueSettings;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import dev.mailqueue.health.registration.QueueHealthCheck;

import java.time.Duration;

/**
 * Alive while the dispatch timer fires: down when it has been silent for ten intervals
 * ({@code mailqueue.dispatch.interval.ms}), at least one minute. A server in that state sends nothing
 * however healthy the rest looks; restarting it is the cure.
 */
@QueueHealthCheck(QueueHealthCheck.Procedure.LIVENESS)
@ApplicationScoped
public class DispatchLiveness implements HealthCheck {

    @Inject
    DispatchHeartbeat heartbeat;

    @Inject
    QueueSettings settings;

    @Override
    public HealthCheckResponse call() {
        Duration allowed = Duration.ofMillis(Math.max(60_000, 10 * settings.intervalMillis()));
        Duration silence = heartbeat.silence();
        return HealthCheckResponse.named("dispatch-timer").status(silence.compareTo(allowed) <= 0)
                .withData("msSinceLastTick", silence.toMillis())
                .withData("msAllowed", allowed.toMillis()).build();
    }
}
