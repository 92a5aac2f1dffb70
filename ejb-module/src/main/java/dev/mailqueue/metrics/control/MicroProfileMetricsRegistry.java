package dev.mailqueue.metrics.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;

/**
 * The queue's metrics in MicroProfile Metrics 5.1, application scope: Open Liberty serves them on
 * {@code /metrics?scope=application} (feature mpMetrics-5.1), e.g. {@code mailqueue_mails_sent_total}.
 * A bean only where the API is present; WildFly no longer ships it.
 */
@ApplicationScoped
public class MicroProfileMetricsRegistry implements MetricsRegistry {

    @Inject
    MetricRegistry registry;

    @Override
    public Runnable counter(String name) {
        Counter counter = registry.counter(name);
        return counter::inc;
    }

    @Override
    public Consumer<Duration> timer(String name) {
        Timer timer = registry.timer(name);
        return timer::update;
    }

    @Override
    public void gauge(String name, Map<String, String> tags, DoubleSupplier value) {
        Tag[] tagArray = tags.entrySet().stream().map(e -> new Tag(e.getKey(), e.getValue())).toArray(Tag[]::new);
        registry.gauge(name, value::getAsDouble, tagArray);
    }
}
