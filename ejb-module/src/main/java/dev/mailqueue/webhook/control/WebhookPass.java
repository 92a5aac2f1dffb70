package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventRecord;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One round of webhook work, done by one server at a time (the lease {@value #WORK} in WORK_LEASE; another
 * server takes over when it runs out): publish the new events to the Jakarta Messaging topic where there is
 * one ({@link EventTopic}), then give each enabled endpoint its events. Events are the mails' log, read by a
 * cursor per publisher ({@link EventCursorStore}): a batch is handed on first and the cursor moved after, so a crash
 * in between hands it on again, and a topic that refuses leaves the cursor where it was for the next round.
 *
 * <p>Each endpoint's round runs as a task of its own on the container's managed executor (Jakarta
 * Concurrency), so a slow receiver delays only itself: the pass waits for the rounds it started at most one
 * request deadline ({@code mailqueue.webhook.timeout.ms}), renews the lease, and returns; a round still
 * running then goes on alone, and its endpoint is left out of later passes until it has ended (one round
 * per endpoint at a time, so its events stay in order). A round starts a request only while the lease
 * this server last renewed outlasts that request's deadline, so a server that lost the lease stops
 * sending after the request in progress.
 *
 * <p>An endpoint's round: first its parked deliveries that are due, in event order; then the events after its
 * cursor that it wants, straight to the receiver, and the cursor moves once, past the batch. A delivery that
 * fails is parked (WEBHOOK_DELIVERY) and backs off ({@link WebhookSettings#backoffMillis}); its mail's later
 * events are parked behind it, and so is the rest of the batch, as the cursor passes it: a failure ends the
 * round. A delivered parked event leaves no row; a delivery still failing {@link WebhookSettings#giveUpMillis}
 * after it was parked is given up (FAILED), and an endpoint failing for
 * {@link WebhookSettings#disableAfterMillis} is disabled until an operator enables it again (its cursor waits).
 * At least once: a delivery is recorded after the receiver's 2xx, so a crash in between sends it again, with
 * the same {@code webhook-id}.
 */
@ApplicationScoped
public class WebhookPass {

    /** The name of the lease. */
    public static final String WORK = "webhooks";

    private static final Logger LOG = Logger.getLogger(WebhookPass.class.getName());

    /** Log rows read per step of the topic. */
    private static final int PUBLISH_LIMIT = 500;

    @Inject
    WebhookSettings settings;

    @Inject
    WebhookTransactions tx;

    @Inject
    EventTopic topic;

    @Resource
    ManagedExecutorService rounds;

    @Resource
    ManagedScheduledExecutorService deadlines;

    WebhookClient client; // package-private for tests

    /** The running round of each endpoint, by name; only the pass adds to it. */
    private final Map<String, Future<Integer>> running = new ConcurrentHashMap<>();

    /** Until when this server holds the lease, as it last renewed it; null before the first renewal. */
    private volatile Instant leaseUntil;

    @PostConstruct
    void init() {
        client = new WebhookClient(settings.timeoutMillis(), settings.allowPrivateAddresses(), deadlines);
    }

    @PreDestroy
    void stop() {
        running.values().forEach(f -> f.cancel(true));
        client.close(); // a round blocked on a socket fails at once
    }

    /**
     * @param owner this server's lease owner name
     * @return deliveries tried by the rounds that ended during this pass
     */
    public int run(String owner) {
        if (settings.endpoints().isEmpty() && !topic.available() || !holdLease(owner)) {
            return 0;
        }
        for (int step = 0; step < 20 && topic.available() && publish(); step++) {
            holdLease(owner);
        }
        running.values().removeIf(Future::isDone);
        List<Future<Integer>> started = new ArrayList<>();
        for (WebhookEndpoint endpoint : settings.endpoints()) {
            if (running.containsKey(endpoint.name()) || tx.state(endpoint.name()).disabledAt() != null) {
                continue; // its previous round goes on, or it is disabled
            }
            Future<Integer> round = rounds.submit(() -> {
                try {
                    return deliver(endpoint);
                } catch (RuntimeException e) { // logged here: the pass may have stopped waiting for it
                    LOG.log(Level.WARNING, "webhook " + endpoint.name() + ": round failed; tried again at the next pass", e);
                    return 0;
                }
            });
            running.put(endpoint.name(), round);
            started.add(round);
        }
        int tried = 0;
        long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis());
        for (Future<Integer> round : started) {
            try {
                tried += round.get(Math.max(0, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // goes on alone; its endpoint waits for it
            } catch (ExecutionException e) {
                LOG.log(Level.SEVERE, "webhook round failed; its endpoint is tried again at the next pass", e.getCause());
            } catch (CancellationException e) {
                // the application is stopping
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        holdLease(owner);
        return tried;
    }

    /** @return true when the topic took a full batch, and more events may be waiting */
    private boolean publish() {
        EventCursorStore.Step step = tx.topicStep(PUBLISH_LIMIT);
        if (!step.events().isEmpty()) {
            try {
                topic.send(step.events());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "events: the topic " + topic.name() + " refused events from "
                        + step.events().get(0).id() + " on; they wait for the next round", e);
                return false;
            }
        }
        tx.advance(step);
        return step.more();
    }

    boolean holdLease(String owner) { // package-private for tests
        Instant now = Instant.now();
        Instant until = now.plusMillis(3 * settings.timeoutMillis() + 30_000);
        boolean held = tx.lease(WORK, owner, now, until);
        if (held) {
            leaseUntil = until;
        }
        return held;
    }

    /** @return true while the lease this server holds outlasts a request started now */
    private boolean leaseCoversARequest() {
        Instant until = leaseUntil;
        return until != null && Instant.now().plusMillis(settings.timeoutMillis()).isBefore(until);
    }

    /** One endpoint's round, on a managed thread; package-private for tests. */
    int deliver(WebhookEndpoint endpoint) {
        Round round = new Round(endpoint);
        try {
            if (round.parked()) {
                round.fromCursor();
            }
        } finally {
            if (round.lastDelivered != null) {
                tx.answered(endpoint.name(), round.lastDelivered);
            }
        }
        return round.tried;
    }

    /** The state of one endpoint's round. */
    private final class Round {

        final WebhookEndpoint endpoint;
        final WebhookSignature signature;
        int tried;
        Instant lastDelivered; // noted on the endpoint once, before a failure or at the round's end

        Round(WebhookEndpoint endpoint) {
            this.endpoint = endpoint;
            this.signature = new WebhookSignature(endpoint.secret());
        }

        /** @return true when every due parked delivery went, and the round goes on to the cursor */
        boolean parked() {
            for (WebhookDeliveryStore.Due d : tx.due(endpoint.name(), Instant.now(), settings.batchSize())) {
                if (!mayPost()) {
                    return false; // the lease may pass to another server: leave the rest to whoever holds it next
                }
                EventRecord e = d.event();
                WebhookClient.Result result = post(e);
                Instant now = Instant.now();
                if (result.delivered()) {
                    tx.delivered(endpoint.name(), e.id(), now, result.status());
                    lastDelivered = now;
                    continue;
                }
                noteDelivered();
                boolean giveUp = d.createdAt().plusMillis(settings.giveUpMillis()).isBefore(now);
                Instant next = giveUp ? null : now.plusMillis(settings.backoffMillis(d.attempts() + 1));
                boolean disabled = tx.tried(endpoint.name(), e.id(), now, result.status(), result.error(), next);
                warn(e, result, giveUp ? "given up" : "next try at " + next, disabled);
                return false; // the receiver is failing: leave the rest of its round for later
            }
            return true;
        }

        /**
         * Sends the new events it wants in order, parking those of a mail with a parked delivery; after a failure,
         * parks the rest; then moves the cursor past the batch, with the parked rows, in one transaction.
         */
        void fromCursor() {
            if (!mayPost()) {
                return;
            }
            WebhookDeliveryStore.EndpointStep step = tx.next(endpoint, settings.batchSize());
            List<WebhookDeliveryStore.Parked> parked = new ArrayList<>();
            Instant failedAt = null;
            for (EventRecord e : step.batch().events()) {
                if (failedAt != null || e.mailId() != null && step.waiting().contains(e.mailId())) {
                    parked.add(WebhookDeliveryStore.Parked.behind(e));
                    continue;
                }
                if (!mayPost()) {
                    return; // the cursor stays: whoever holds the lease next sends the batch (again: at least once)
                }
                WebhookClient.Result result = post(e);
                Instant now = Instant.now();
                if (result.delivered()) {
                    lastDelivered = now;
                    continue;
                }
                noteDelivered();
                Instant next = now.plusMillis(settings.backoffMillis(1));
                parked.add(WebhookDeliveryStore.Parked.failed(e, result.status(), result.error(), next));
                failedAt = now;
                warn(e, result, "next try at " + next, false);
            }
            if (step.batch().moves() || !parked.isEmpty()) {
                if (tx.passed(endpoint.name(), step.batch(), parked, failedAt)) {
                    LOG.warning(() -> "webhook " + endpoint.name() + ": endpoint DISABLED");
                }
            }
        }

        private boolean mayPost() {
            return leaseCoversARequest() && !Thread.currentThread().isInterrupted();
        }

        private WebhookClient.Result post(EventRecord e) {
            long timestamp = Instant.now().getEpochSecond();
            String body = EventJson.webhookBody(e);
            String id = EventJson.id(e);
            tried++;
            // The address is resolved and checked (unless private addresses are allowed) for each new
            // connection, and the connection goes to the address checked (PinnedResolver).
            return client.post(endpoint.url(), id, timestamp, signature.sign(id, timestamp, body), body);
        }

        /** Notes the deliveries before a failure on the endpoint, so that the failure is the latest word. */
        private void noteDelivered() {
            if (lastDelivered != null) {
                tx.answered(endpoint.name(), lastDelivered);
                lastDelivered = null;
            }
        }

        private void warn(EventRecord e, WebhookClient.Result result, String what, boolean disabled) {
            LOG.warning(() -> "webhook " + endpoint.name() + ": event " + e.id() + " not delivered (" + result.error()
                    + "); " + what + (disabled ? "; endpoint DISABLED" : ""));
        }
    }
}
