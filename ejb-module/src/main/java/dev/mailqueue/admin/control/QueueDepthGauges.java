package dev.mailqueue.admin.control;

import dev.mailqueue.metrics.control.Metrics;
import dev.mailqueue.api.MailStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.util.EnumMap;
import java.util.Map;

/**
 * Gauge {@code mailqueue.queue.depth} with tag {@code status}: mails per status in the queue database
 * (all servers' mails, as the tables hold them). One reading ({@link StatisticsReader#countsByStatus}: a count of
 * the queue's rows and a sum of the 96 rows of kept counts, whatever the size of the history) serves all statuses and is repeated at most once per
 * {@value #MAX_AGE_MS} ms, however often the metrics are scraped.
 */
@ApplicationScoped
public class QueueDepthGauges {

    /** How old the counts may be, ms. */
    static final long MAX_AGE_MS = 2_000;

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    @Inject
    Metrics metrics;

    private Map<MailStatus, Long> counts = new EnumMap<>(MailStatus.class);
    private long readAt;

    /** Registers the gauges when the application starts. */
    void register(@Observes @Initialized(ApplicationScoped.class) Object started) {
        for (MailStatus status : MailStatus.values()) {
            metrics.gauge("mailqueue.queue.depth", Map.of("status", status.name()), () -> depth(status));
        }
    }

    /** @return mails in {@code status}, at most {@value #MAX_AGE_MS} ms old */
    synchronized long depth(MailStatus status) {
        long now = System.currentTimeMillis();
        if (now - readAt > MAX_AGE_MS) {
            counts = StatisticsReader.countsByStatus(em);
            readAt = now;
        }
        return counts.getOrDefault(status, 0L);
    }
}
