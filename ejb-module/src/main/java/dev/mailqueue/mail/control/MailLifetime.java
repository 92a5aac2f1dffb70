package dev.mailqueue.mail.control;

import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;

/**
 * How often and how long the queue tries a mail, as a new or requeued mail gets it: {@code mailqueue.delivery.max-attempts}
 * attempts, and an expiry that is the earlier of the caller's expiresAt and {@code mailqueue.delivery.max-lifetime.ms}
 * after now (0 for no limit). The validator reads it to refuse a mail due only after it expires, the factory and the
 * operator's requeue to queue one.
 */
@ApplicationScoped
public class MailLifetime {

    @Inject
    QueueSettings settings;

    /** For CDI. */
    public MailLifetime() {
    }

    /**
     * @param settings the queue's settings
     * @return a lifetime on those settings, outside a container
     */
    static MailLifetime of(QueueSettings settings) {
        MailLifetime lifetime = new MailLifetime();
        lifetime.settings = settings;
        return lifetime;
    }

    /** @return the attempts a mail is queued (or requeued) with: {@code mailqueue.delivery.max-attempts}, 1 or more */
    public int attempts() {
        return settings.maxAttempts();
    }

    /**
     * @param requested the caller's expiry, or null for none
     * @param now       now
     * @return the earlier of the caller's expiry and now plus the queue's maximum lifetime (if set), or
     *         null when there is neither
     */
    public Instant expiry(Instant requested, Instant now) {
        long lifetime = settings.maxLifetimeMillis();
        Instant limit = lifetime > 0 ? now.plusMillis(lifetime) : null;
        if (requested == null || limit != null && limit.isBefore(requested)) {
            return limit;
        }
        return requested;
    }
}
