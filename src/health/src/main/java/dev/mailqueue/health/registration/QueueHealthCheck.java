package dev.mailqueue.health.registration;

import jakarta.inject.Qualifier;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean of type {@link org.eclipse.microprofile.health.HealthCheck} as one of the queue's health checks,
 * in place of MicroProfile Health's {@code @Readiness} / {@code @Liveness}: {@link HealthCheckRegistration}
 * registers it with that qualifier from the EAR's library, where both Open Liberty and WildFly find it. A check
 * that carried the MicroProfile qualifier itself would be found twice on Liberty and not at all on WildFly.
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER})
public @interface QueueHealthCheck {

    /** @return which health procedure the check belongs to */
    Procedure value();

    /** The MicroProfile Health procedures the queue has checks for. */
    enum Procedure {
        /** {@code /health/ready}: whether to send work here. */
        READINESS,
        /** {@code /health/live}: whether to restart the server. */
        LIVENESS
    }
}
