package dev.mailqueue.metrics.control;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.logging.Logger;

/**
 * The metrics registry of the server the queue runs on ({@link MetricsRegistry}: MicroProfile Metrics on Open
 * Liberty, Micrometer on WildFly), or none: where the
 * server offers no metrics API the queue knows, counters, timers and gauges are kept nowhere and the
 * start says so once in the log. Every other class registers its metrics here.
 */
@ApplicationScoped
public class Metrics {

    private static final Logger LOG = Logger.getLogger(Metrics.class.getName());

    @Inject
    Instance<MetricsRegistry> registries;

    private MetricsRegistry target;

    @PostConstruct
    void choose() {
        target = registries.stream().findFirst().orElse(null);
        if (target == null) {
            LOG.info("no metrics API on this server (MicroProfile Metrics, Micrometer): the queue's metrics are not published");
        } else {
            LOG.info(() -> "the queue's metrics are published through " + target.getClass().getSimpleName());
        }
    }

    /** @see MetricsRegistry#counter(String) */
    public Runnable counter(String name) {
        return target == null ? () -> { } : target.counter(name);
    }

    /** @see MetricsRegistry#timer(String) */
    public Consumer<Duration> timer(String name) {
        return target == null ? d -> { } : target.timer(name);
    }

    /** @see MetricsRegistry#gauge(String, Map, DoubleSupplier) */
    public void gauge(String name, Map<String, String> tags, DoubleSupplier value) {
        if (target != null) {
            target.gauge(name, tags, value);
        }
    }
}
