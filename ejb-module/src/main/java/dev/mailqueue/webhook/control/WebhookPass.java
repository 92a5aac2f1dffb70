package dev.mailqueue.webhook.control;

import dev.mailqueue.queue.control.EventRecord;
import dev.mailqueue.queue.control.EventStore;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * One round of webhook work, done by one server at a time (the lease {@value #WORK} in WORK_LEASE; another
 * server takes over when it runs out): publish new events to the Jakarta Messaging topic where there is
 * one ({@link EventTopic}: each batch is sent before the outbox marks it published, so a crash in between
 * sends it again, and a topic that refuses holds the batch back for the next round), hand them to the
 * endpoints that want them, then send each enabled endpoint its due deliveries in event order. At least once: a delivery is recorded after the
 * receiver's 2xx, so a crash in between sends it again, with the same {@code webhook-id}. A failure backs
 * the delivery off ({@link WebhookSettings#backoffMillis}), holds back the later events of its mail, and
 * ends the endpoint's round (one slow or dead receiver costs at most one timeout a round); a delivery
 * failing past {@link WebhookSettings#giveUpMillis} is given up (FAILED), and an endpoint failing for
 * {@link WebhookSettings#disableAfterMillis} is disabled until an operator enables it again.
 */
@ApplicationScoped
public class WebhookPass {

    /** The name of the lease. */
    public static final String WORK = "webhooks";

    private static final Logger LOG = Logger.getLogger(WebhookPass.class.getName());

    /** Events handed out per publish step. */
    private static final int PUBLISH_LIMIT = 500;

    @Inject
    WebhookSettings settings;

    @Inject
    WebhookTransactions tx;

    @Inject
    EventTopic topic;

    private WebhookClient client;

    @PostConstruct
    void init() {
        client = new WebhookClient(settings.timeoutMillis());
    }

    /**
     * @param owner this server's lease owner name
     * @return deliveries tried in this round
     */
    public int run(String owner) {
        if (settings.endpoints().isEmpty() && !topic.available() || !holdLease(owner)) {
            return 0;
        }
        for (int round = 0; round < 20 && publish() == PUBLISH_LIMIT; round++) {
            holdLease(owner);
        }
        int tried = 0;
        for (WebhookEndpoint endpoint : settings.endpoints()) {
            if (tx.state(endpoint.name()).disabledAt() != null || !holdLease(owner)) {
                continue;
            }
            tried += deliver(endpoint);
        }
        return tried;
    }

    /** @return events published in this step */
    private int publish() {
        if (!topic.available()) {
            return tx.publish(PUBLISH_LIMIT, Instant.now());
        }
        List<EventRecord> batch = tx.unpublished(PUBLISH_LIMIT);
        if (batch.isEmpty()) {
            return 0;
        }
        try {
            topic.send(batch);
        } catch (RuntimeException e) {
            LOG.log(java.util.logging.Level.WARNING, "events: the topic " + topic.name() + " refused events from "
                    + batch.get(0).id() + " on; they wait for the next round", e);
            return 0;
        }
        tx.publish(batch.stream().map(EventRecord::id).toList(), Instant.now());
        return batch.size();
    }

    private boolean holdLease(String owner) {
        Instant now = Instant.now();
        return tx.lease(WORK, owner, now, now.plusMillis(3 * settings.timeoutMillis() + 30_000));
    }

    private int deliver(WebhookEndpoint endpoint) {
        WebhookSignature signature = new WebhookSignature(endpoint.secret());
        Set<Long> heldBack = new HashSet<>();
        List<EventStore.Due> due = tx.due(endpoint.name(), Instant.now(), settings.batchSize());
        if (due.isEmpty()) {
            return 0;
        }
        // Checked once a round: the JVM caches the name's addresses for 30 s anyway.
        String refused = settings.allowPrivateAddresses() ? null : PublicAddresses.problemWith(endpoint.url().getHost());
        int tried = 0;
        Instant lastDelivered = null; // noted on the endpoint once, before a failure or at the round's end
        for (EventStore.Due d : due) {
            EventRecord e = d.event();
            if (e.mailId() != null && heldBack.contains(e.mailId())) {
                continue;
            }
            WebhookClient.Result result;
            if (refused != null) {
                result = new WebhookClient.Result(null, "not sent: " + refused);
            } else {
                long timestamp = Instant.now().getEpochSecond();
                String body = EventJson.webhookBody(e);
                String id = EventJson.id(e);
                result = client.post(endpoint.url(), id, timestamp, signature.sign(id, timestamp, body), body);
            }
            tried++;
            Instant now = Instant.now();
            if (result.delivered()) {
                tx.delivered(endpoint.name(), e.id(), now, result.status());
                lastDelivered = now;
                continue;
            }
            if (lastDelivered != null) {
                tx.answered(endpoint.name(), lastDelivered);
                lastDelivered = null;
            }
            boolean giveUp = d.createdAt().plusMillis(settings.giveUpMillis()).isBefore(now);
            Instant next = giveUp ? null : now.plusMillis(settings.backoffMillis(d.attempts() + 1));
            boolean disabled = tx.tried(endpoint.name(), e.id(), now, result.status(), result.error(), next);
            LOG.warning(() -> "webhook " + endpoint.name() + ": event " + e.id() + " not delivered (" + result.error() + "); "
                    + (giveUp ? "given up" : "next try at " + next) + (disabled ? "; endpoint DISABLED" : ""));
            if (e.mailId() != null) {
                heldBack.add(e.mailId());
            }
            break; // the receiver is failing: leave the rest of its round for later
        }
        if (lastDelivered != null) {
            tx.answered(endpoint.name(), lastDelivered);
        }
        return tried;
    }
}
