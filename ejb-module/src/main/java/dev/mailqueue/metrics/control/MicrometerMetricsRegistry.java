package dev.mailqueue.metrics.control;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;

/**
 * The queue's metrics in Micrometer: WildFly 39's subsystem {@code micrometer} gives each deployment a
 * {@link MeterRegistry} (Micrometer 1.15.7) and, with its Prometheus registry, serves them on the management
 * port ({@code http://localhost:9990/metrics}, {@code src/wildfly/configure.cli}) under the names Liberty uses,
 * e.g. {@code mailqueue_mails_sent_total}, each with WildFly's tag {@code WF_DEPLOYMENT="mailqueue.ear"}.
 * A bean only where Micrometer is on the class path; Liberty's applications do not see it.
 * <p>
 * Only the registry's own methods are used ({@code counter}, {@code timer}, {@code gauge}): WildFly's
 * per-deployment registry forwards those to the exported one, while a meter built with {@code Timer.builder(..)
 * .register(..)} would stay in the deployment's registry and never be exported (WildFly 39.0.1,
 * {@code ApplicationRegistry}). So timers have count, sum and max, no percentiles. Micrometer holds a gauge's
 * state weakly: this bean holds the suppliers for as long as the application runs, and removes its meters when
 * it stops, so that a redeployed EAR registers its gauges afresh.
 */
@ApplicationScoped
public class MicrometerMetricsRegistry implements MetricsRegistry {

    @Inject
    MeterRegistry registry;

    private final List<DoubleSupplier> gauges = new CopyOnWriteArrayList<>();
    private final List<Meter> meters = new CopyOnWriteArrayList<>();

    @Override
    public Runnable counter(String name) {
        Counter counter = registry.counter(name);
        meters.add(counter);
        return counter::increment;
    }

    @Override
    public Consumer<Duration> timer(String name) {
        Timer timer = registry.timer(name);
        meters.add(timer);
        return timer::record;
    }

    @Override
    public void gauge(String name, Map<String, String> tags, DoubleSupplier value) {
        Tags gaugeTags = Tags.empty();
        for (Map.Entry<String, String> tag : tags.entrySet()) {
            gaugeTags = gaugeTags.and(tag.getKey(), tag.getValue());
        }
        gauges.add(value);
        registry.gauge(name, gaugeTags, value, DoubleSupplier::getAsDouble);
        Meter gauge = registry.find(name).tags(gaugeTags).gauge();
        if (gauge != null) {
            meters.add(gauge);
        }
    }

    /** Removes this application's meters from the server's registry. */
    @PreDestroy
    void removeMeters() {
        meters.forEach(registry::remove);
        meters.clear();
        gauges.clear();
    }
}
