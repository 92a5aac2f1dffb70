package dev.mailqueue.health.registration;

import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessBean;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.lang.annotation.Annotation;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Makes the queue's health checks ({@link QueueHealthCheck} beans, in the web module) MicroProfile Health checks
 * of the EAR's library. WildFly 39 registers only the health checks its CDI extension can see from the EAR's
 * top level, i.e. beans of {@code lib/} jars, and none of the EJB jar or the WAR (WFLY-12835, open; read in
 * {@code CDIExtension} and {@code WeldDeployment} of WildFly 39.0.1 and tried here). Open Liberty asks each web
 * module's bean manager, which sees {@code lib/} too. So for each queue check this adds one bean to this
 * library's bean archive, with the MicroProfile qualifier, that hands out the check itself: each server then
 * finds each check exactly once.
 */
public class HealthCheckRegistration implements Extension {

    private static final Logger LOG = Logger.getLogger(HealthCheckRegistration.class.getName());

    private final Map<Bean<?>, QueueHealthCheck.Procedure> checks = new LinkedHashMap<>();

    /** Notes each queue health check of any module of the application. */
    void collect(@Observes ProcessBean<?> event) {
        Bean<?> bean = event.getBean();
        if (bean.getTypes().contains(HealthCheck.class)) {
            for (Annotation qualifier : bean.getQualifiers()) {
                if (qualifier instanceof QueueHealthCheck check) {
                    checks.put(bean, check.value());
                }
            }
        }
    }

    /** Adds the MicroProfile health check beans, one per queue check, to this library. */
    void register(@Observes AfterBeanDiscovery discovery, BeanManager beans) {
        checks.forEach((check, procedure) -> discovery.<HealthCheck>addBean()
                .id(HealthCheckRegistration.class.getName() + "#" + check.getBeanClass().getName())
                .beanClass(HealthCheckRegistration.class) // this library's bean archive, not the check's module
                .types(HealthCheck.class, Object.class)
                .qualifiers(qualifier(procedure), Any.Literal.INSTANCE)
                .scope(Dependent.class)
                .createWith(context -> (HealthCheck) beans.getReference(check, HealthCheck.class, context)));
        LOG.fine(() -> "queue health checks registered: " + checks);
    }

    private static Annotation qualifier(QueueHealthCheck.Procedure procedure) {
        return switch (procedure) {
            case READINESS -> Readiness.Literal.INSTANCE;
            case LIVENESS -> Liveness.Literal.INSTANCE;
        };
    }
}
