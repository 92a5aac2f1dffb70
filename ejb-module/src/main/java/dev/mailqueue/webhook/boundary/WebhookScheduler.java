package dev.mailqueue.webhook.boundary;

import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.webhook.control.EventTopic;
import dev.mailqueue.webhook.control.WebhookPass;
import dev.mailqueue.webhook.control.WebhookSettings;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs a {@link WebhookPass} every {@code mailqueue.webhook.interval.ms} when webhook
 * endpoints are configured or events go to a Jakarta Messaging topic ({@link EventTopic}); without either,
 * nothing is scheduled and events stay in the mails' log (readable
 * through {@code GET /api/mails/{id}/events}). A pass that is still running when the timer fires again
 * (it waits at most one request deadline for the endpoints' rounds, see {@link WebhookPass}) makes that
 * timeout a no-op. The work runs outside a transaction: each database step commits on its own.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class WebhookScheduler {

    private static final Logger LOG = Logger.getLogger(WebhookScheduler.class.getName());

    @jakarta.annotation.Resource
    TimerService timers;

    @Inject
    WebhookSettings settings;

    @Inject
    WebhookPass pass;

    @Inject
    EventTopic topic;

    @Inject
    ServerInstance server;

    private final AtomicBoolean running = new AtomicBoolean();
    private String owner;

    @PostConstruct
    void schedule() {
        if (settings.endpoints().isEmpty() && !topic.configured()) {
            LOG.info("webhooks off: no endpoint in mailqueue.webhooks, and no Jakarta Messaging topic for events");
            return;
        }
        owner = server.name() + "#" + UUID.randomUUID().toString().substring(0, 8);
        timers.createIntervalTimer(settings.intervalMillis(), settings.intervalMillis(), new TimerConfig("webhooks", false));
        LOG.info(() -> "webhooks: delivering events to " + settings.endpoints()
                + (topic.configured() ? " and the topic " + topic.name() + " where it exists" : "") + " every " + settings.intervalMillis()
                + " ms" + (settings.allowPrivateAddresses() ? " (private addresses ALLOWED)" : ""));
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void run(Timer timer) {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            pass.run(owner);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "webhook round failed; trying again at the next interval", e);
        } finally {
            running.set(false);
        }
    }
}
