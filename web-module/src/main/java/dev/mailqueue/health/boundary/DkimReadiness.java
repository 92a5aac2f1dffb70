package dev.mailqueue.health.boundary;

import dev.mailqueue.dkim.control.DkimKeys;
import dev.mailqueue.health.registration.QueueHealthCheck;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * Whether every configured DKIM key could be read ({@link DkimKeys}): one entry per key, its domain and
 * selector, or why its file could not be read. A key that cannot be read makes the check DOWN: its domain's mail
 * waits instead of leaving unsigned, which an operator must hear of before the backlog grows. No keys: UP.
 */
@QueueHealthCheck(QueueHealthCheck.Procedure.READINESS)
@ApplicationScoped
public class DkimReadiness implements HealthCheck {

    @Inject
    DkimKeys keys;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("dkim").status(keys.problems().isEmpty());
        keys.all().forEach(entry -> response.withData(entry.name(), entry.problem() != null ? entry.problem()
                : entry.domain() + " " + entry.key().dnsName() + " (" + entry.key().bits() + " bits)"));
        return response.build();
    }
}
