package dev.mailqueue.webhook.control;

import com.sun.net.httpserver.HttpServer;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An endpoint's round ({@link WebhookPass}) on the real DDL against a receiver of the test's own: the events go
 * straight from the endpoint's cursor, and a delivered one leaves no row; a failure ends the round, parks the event
 * and the rest of the batch, and backs off; the parked ones go first in later rounds, a mail's events in order.
 */
@Tag("database")
class WebhookRoundTest {

    static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString(
            "a secret of the round test, 32 by".getBytes(StandardCharsets.US_ASCII));
    static final Duration PATIENCE = Duration.ofSeconds(20);

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    /** One request the receiver took: the event's id, its mail, its type, and the answer it gave. */
    record Received(String id, long mailId, String type, int answered) {
    }

    final List<Received> received = new CopyOnWriteArrayList<>();
    volatile Predicate<Received> refuse = r -> false;
    HttpServer receiver;
    ScheduledExecutorService deadlines;
    WebhookPass cut;
    WebhookEndpoint endpoint;

    @BeforeEach
    void start() throws IOException {
        for (String table : List.of("WEBHOOK_DELIVERY", "EVENT_CURSOR", "WEBHOOK_ENDPOINT", "WORK_LEASE")) {
            db.update("DELETE FROM " + table);
        }
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hooks", exchange -> {
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            JsonObject data = Json.createReader(new StringReader(body)).readObject().getJsonObject("data");
            Received r = new Received(exchange.getRequestHeaders().getFirst("webhook-id"),
                    data.containsKey("mailId") ? data.getJsonNumber("mailId").longValue() : -1, data.getString("type"), 0);
            int status = refuse.test(r) ? 503 : 204;
            received.add(new Received(r.id(), r.mailId(), r.type(), status));
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        receiver.start();
        Map<String, String> settings = Map.ofEntries(Map.entry("mailqueue.webhooks", "crm"),
                Map.entry("mailqueue.webhook.crm.url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks"),
                Map.entry("mailqueue.webhook.crm.secret", SECRET),
                Map.entry("mailqueue.webhook.interval.ms", "1000"), Map.entry("mailqueue.webhook.timeout.ms", "5000"),
                Map.entry("mailqueue.webhook.backoff.min.ms", "1000"), Map.entry("mailqueue.webhook.backoff.max.ms", "2000"),
                Map.entry("mailqueue.webhook.give-up.ms", "3600000"), Map.entry("mailqueue.webhook.disable-after.ms", "3600000"),
                Map.entry("mailqueue.webhook.batch-size", "100"), Map.entry("mailqueue.webhook.allow-private-addresses", "true"));
        WebhookSettings webhookSettings = WebhookSettings.of(name -> Optional.ofNullable(settings.get(name)));
        WebhookTransactions tx = new WebhookTransactions(); // each call on a connection of its own, as REQUIRES_NEW
        tx.cursors = EventCursorStore.on(db.tables());
        tx.deliveries = WebhookDeliveryStore.on(db.tables());
        tx.endpoints = WebhookEndpointStore.on(db.tables());
        tx.leases = WorkLeaseStore.on(db.tables());
        tx.settings = webhookSettings;
        deadlines = Executors.newSingleThreadScheduledExecutor();
        cut = new WebhookPass();
        cut.settings = webhookSettings;
        cut.tx = tx;
        cut.client = new WebhookClient(webhookSettings.timeoutMillis(), true, deadlines);
        endpoint = webhookSettings.endpoints().get(0);
        assertThat(cut.holdLease("test#1")).isTrue();
    }

    @AfterEach
    void stop() {
        cut.client.close();
        deadlines.shutdownNow();
        receiver.stop(0);
    }

    long cancelled(String subject) {
        long id = db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(
                TestMails.due(mail(subject, 4, Instant.now()), Instant.now().plusSeconds(3600))), "host/server")).get(0).get(0).id();
        cancel(id);
        return id;
    }

    void cancel(long id) {
        db.inTransaction(() -> db.operatorStore().cancel(List.of(id), MailLifecycle.CANCELLABLE, "host/server", "test"));
    }

    void requeue(long id) {
        db.inTransaction(() -> db.operatorStore().requeue(List.of(id), Instant.now(), 3, null, "host/server", "test"));
    }

    /** Runs rounds until {@code done} holds (on PostgreSQL the events wait for the oldest transaction running). */
    void roundsUntil(java.util.function.BooleanSupplier done) {
        long until = System.nanoTime() + PATIENCE.toNanos();
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as("rounds until done; received %s", received).isLessThan(until);
            cut.holdLease("test#1");
            cut.deliver(endpoint);
            sleep(50);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    List<Received> delivered() {
        return received.stream().filter(r -> r.answered() == 204).toList();
    }

    long rows() {
        return db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY");
    }

    @Test
    void aNewEndpointGetsNoHistoryThenEventsGoStraightFromItsCursorAndADeliveredOneLeavesNoRow() {
        long history = cancelled("before the endpoint");
        cut.deliver(endpoint); // its first round: its cursor starts here
        assertThat(db.number("SELECT COUNT(*) FROM EVENT_CURSOR WHERE NAME = 'webhook:crm'")).isEqualTo(1);
        long first = cancelled("first");
        long second = cancelled("second");

        roundsUntil(() -> delivered().stream().anyMatch(r -> r.mailId() == second));

        if (!QueueDatabase.KIND.equals("postgresql")) { // there a transaction running elsewhere may hold the horizon back
            assertThat(received).extracting(Received::mailId).doesNotContain(history);
        }
        assertThat(received).extracting(Received::mailId).endsWith(first, second);
        assertThat(received).extracting(Received::type).containsOnly("cancelled");
        assertThat(rows()).as("no delivery row for a delivered event").isZero();
        assertThat(tx().state("crm")).satisfies(s -> {
            assertThat(s.lastSuccessAt()).isNotNull();
            assertThat(s.failingSince()).isNull();
            assertThat(s.cursor()).isNotNull();
        });
    }

    WebhookTransactions tx() {
        return cut.tx;
    }

    @Test
    void aFailureParksTheEventAndTheRestOfTheBatchAndTheyGoLaterAMailsEventsInOrder() {
        cut.deliver(endpoint);
        long m = cancelled("m");
        requeue(m);
        cancel(m);                                      // m: two events
        long n = cancelled("n");
        long firstOfM = db.number("SELECT MIN(ID) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", m) * 128 + 127;
        refuse = r -> r.id().equals("evt_" + firstOfM);

        roundsUntil(() -> !received.isEmpty());
        assertThat(received).as("the round ended at the failure").singleElement()
                .satisfies(r -> assertThat(r.answered()).isEqualTo(503));
        assertThat(rows()).as("the failed event and the rest of its batch are parked").isEqualTo(3);
        assertThat(tx().state("crm").failingSince()).isNotNull();

        cut.deliver(endpoint);                          // m's first backs off; n's goes, m's second waits behind it
        assertThat(delivered()).extracting(Received::mailId).containsExactly(n);
        refuse = r -> false;
        roundsUntil(() -> delivered().size() == 3);

        assertThat(received.stream().filter(r -> r.mailId() == m).map(Received::id).toList())
                .as("m's first, refused, then again, then m's second").hasSize(3)
                .satisfies(ids -> assertThat(ids.get(0)).isEqualTo(ids.get(1)).isEqualTo("evt_" + firstOfM));
        assertThat(delivered()).extracting(Received::id).doesNotHaveDuplicates();
        assertThat(rows()).isZero();
        assertThat(tx().state("crm").failingSince()).isNull();
    }
}
