package dev.mailqueue.metrics.control;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;

/**
 * Where the queue publishes its metrics: the metrics API of the server it runs on. The queue's classes
 * never name such an API; each implementation of this interface does, and is a CDI bean only where its
 * API is on the class path (a bean class that cannot be loaded is skipped by CDI), so the same EAR
 * deploys where it is missing. {@link Metrics} picks the one present.
 */
public interface MetricsRegistry {

    /**
     * @param name a dotted metric name, e.g. {@code mailqueue.mails.sent}
     * @return what counts one more
     */
    Runnable counter(String name);

    /**
     * @param name a dotted metric name, e.g. {@code mailqueue.send.duration}
     * @return what records one duration (count, total, percentiles as the API keeps them)
     */
    Consumer<Duration> timer(String name);

    /**
     * Registers a gauge read whenever the metrics are read.
     *
     * @param name  a dotted metric name
     * @param tags  its tags (name to value), empty for none
     * @param value reads its current value
     */
    void gauge(String name, Map<String, String> tags, DoubleSupplier value);
}
