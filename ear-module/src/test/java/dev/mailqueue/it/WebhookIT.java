package dev.mailqueue.it;

import com.sun.net.httpserver.HttpServer;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.webhook.control.WebhookSignature;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery events pushed to a webhook receiver (the test's own HTTP server, the endpoint {@code it} of the
 * test servers, which wants the events of campaign {@code webhook-it}). The receiver checks every request
 * as a Standard Webhooks receiver would: the signature over id, timestamp and body under the shared
 * secret, and the timestamp against its clock. A delivered mail brings {@code sent}, a recipient the
 * scripted server refuses {@code refused}, each with the mail's reference, campaign and tags; a receiver
 * that is down for a while gets the event later, with the same id, and accepts each id once.
 */
class WebhookIT extends QueueServerIT {

    static final int RECEIVER_PORT = Integer.getInteger("it.webhook.port", 3134);
    static final int SCRIPTED_PORT = Integer.getInteger("it.smtp.backup.port", 3126);
    static final WebhookSignature SIGNATURE = new WebhookSignature(
            WebhookSignature.key("whsec_aXQtd2ViaG9vay1zZWNyZXQtb2YtdGhlLXRlc3Qtc2VydmVycw=="));
    static final String RUN = Long.toString(System.currentTimeMillis(), 36);

    /** One request as the receiver saw it. */
    record Received(String id, boolean signed, boolean fresh, int answered, Map<String, Object> data) {
    }

    static final List<Received> RECEIVED = new CopyOnWriteArrayList<>();
    static final AtomicBoolean DOWN = new AtomicBoolean();
    static HttpServer receiver;
    static ScriptedSmtpServer scripted;

    @BeforeAll
    static void start() throws IOException {
        scripted = ScriptedSmtpServer.start(SCRIPTED_PORT);
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", RECEIVER_PORT), 0);
        receiver.createContext("/hooks", exchange -> {
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            String id = exchange.getRequestHeaders().getFirst("webhook-id");
            long timestamp = Long.parseLong(exchange.getRequestHeaders().getFirst("webhook-timestamp"));
            boolean signed = SIGNATURE.verify(id, timestamp, body, exchange.getRequestHeaders().getFirst("webhook-signature"));
            boolean fresh = Math.abs(Instant.now().getEpochSecond() - timestamp) <= 300; // the specification's tolerance
            int status = DOWN.get() ? 503 : signed && fresh ? 204 : 400;
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) QueueApi.jsonObject(body).get("data");
            RECEIVED.add(new Received(id, signed, fresh, status, data));
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterAll
    static void stop() {
        receiver.stop(0);
        scripted.close();
    }

    static List<Received> of(long mailId) {
        return RECEIVED.stream().filter(r -> r.data() != null && r.data().get("mailId") instanceof Number n
                && n.longValue() == mailId).toList();
    }

    @Test
    void aDeliveredAndARefusedRecipientAreReportedSignedWithTheCallersReferenceCampaignAndTags() {
        String ok = "ok." + RUN + "@hooks.example";
        String gone = "gone." + RUN + "@hooks.example";
        scripted.refuseRecipient(gone, 550, "5.1.1 <" + gone + ">: no such user", -1);
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("shop@sender.example").to(ok, gone)
                .subject("Your order").text("Thanks.").account("backup").campaign("webhook-it")
                .reference("order-" + RUN).tags("receipt", "shop"));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(20)).until(() -> of(receipt.getId()).size() >= 2);
        List<Received> received = of(receipt.getId());
        assertThat(received).allSatisfy(r -> {
            assertThat(r.signed()).as("signature of %s", r.id()).isTrue();
            assertThat(r.fresh()).isTrue();
            assertThat(r.answered()).isEqualTo(204);
            assertThat(r.data()).containsEntry("reference", "order-" + RUN).containsEntry("campaign", "webhook-it")
                    .containsEntry("tags", List.of("receipt", "shop")).containsEntry("id", r.id());
        });
        assertThat(received).extracting(r -> r.data().get("type") + ":" + r.data().get("recipient"))
                .containsExactly("sent:" + ok, "refused:" + gone);
        @SuppressWarnings("unchecked")
        Map<String, Object> reply = (Map<String, Object>) received.get(1).data().get("reply");
        assertThat(((Number) reply.get("code")).intValue()).isEqualTo(550);
        assertThat(reply).containsEntry("enhancedStatus", "5.1.1");

        HttpResponse<String> events = QueueApi.get("/api/mails/" + receipt.getId() + "/events");
        assertThat(events.statusCode()).as(events.body()).isEqualTo(200);
        assertThat(events.body()).contains("\"type\":\"sent\"", "\"type\":\"refused\"", received.get(0).id());
    }

    @Test
    void aReceiverThatIsDownGetsTheEventLaterWithTheSameIdAndEachIdIsAcceptedOnce() throws Exception {
        DOWN.set(true);
        EnqueueReceipt receipt;
        try {
            receipt = QueueApi.enqueue(new MailRequest().from("shop@sender.example").to("later." + RUN + "@hooks.example")
                    .subject("While the receiver is down").text("x").campaign("webhook-it"));
            QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(20)).until(() -> of(receipt.getId()).size() >= 2);
            HttpResponse<String> endpoint = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/webhooks/it");
            assertThat(QueueApi.jsonObject(endpoint.body())).containsKey("failingSince");
        } finally {
            DOWN.set(false);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> of(receipt.getId()).stream().anyMatch(r -> r.answered() == 204));
        Thread.sleep(1_500); // rounds every 300 ms: a second delivery of a delivered event would come now

        List<Received> received = of(receipt.getId());
        assertThat(received).extracting(Received::id).as("one event, tried until delivered").containsOnly(received.get(0).id());
        assertThat(received.stream().filter(r -> r.answered() == 204)).as("delivered once").hasSize(1);
        assertThat(received.get(received.size() - 1).answered()).isEqualTo(204);

        HttpResponse<String> log = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/webhooks/it/deliveries?status=DELIVERED");
        assertThat(log.statusCode()).as(log.body()).isEqualTo(200);
        assertThat(log.body()).contains("\"eventId\":\"" + received.get(0).id() + "\"", "\"httpStatus\":204");
        HttpResponse<String> endpoint = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/webhooks/it");
        assertThat(QueueApi.jsonObject(endpoint.body())).doesNotContainKey("failingSince").containsEntry("disabled", false);

        HttpResponse<String> redeliver = QueueApi.sendAs(TestUser.ADMIN, "POST",
                "/api/admin/webhooks/it/deliveries/" + received.get(0).id() + "/redeliver");
        assertThat(redeliver.statusCode()).as(redeliver.body()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(10)).until(() -> of(receipt.getId()).size() == received.size() + 1);
        assertThat(of(receipt.getId()).get(received.size()).id()).as("an operator's redelivery keeps the id")
                .isEqualTo(received.get(0).id());
    }

    /**
     * No event is lost in a crash, and a staging server's events are produced as in production: a second
     * server in SANDBOX mode (sharing the PostgreSQL database; an account only it has; no webhook work of its
     * own) records a mail as sent without sending it, while the receiver is down, and is killed (SIGKILL)
     * before its event could be delivered; the event is delivered after that, once, with its id, by the
     * server that does the webhook work. Liberty on PostgreSQL only: it needs a second server on a shared
     * database; neither the mode nor the outbox's durability depends on the database.
     */
    @Test
    void aSandboxServersEventOutlivesItsKillAndIsDeliveredAfterIt() throws Exception {
        org.assertj.core.api.Assumptions.assumeThat(System.getProperty("it.db", "derby")).isEqualTo("postgresql");
        org.assertj.core.api.Assumptions.assumeThat(System.getProperty("it.server", "liberty")).isEqualTo("liberty");
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        DOWN.set(true);
        long mailId;
        try (ScriptedSmtpServer smtp = ScriptedSmtpServer.start(port);
             SecondServer second = SecondServer.start(FaultyAccount.config(port, 0)
                     + "<variable name=\"mailqueue.delivery.mode\" value=\"sandbox\"/>\n"
                     // No webhook work there: a killed holder of its lease would hold it up until the lease ran out.
                     + "<variable name=\"mailqueue.webhooks\" value=\"\"/>\n"
                     + "<variable name=\"mailqueue.events.topic\" value=\"\"/>\n")) {
            HttpResponse<String> response = QueueApi.postTo(SecondServer.BASE, "/api/mails", QueueApi.toJson(new MailRequest()
                    .account("faulty").from("staging@sender.example").to("customer." + RUN + "@hooks.example")
                    .subject("Sandboxed, then the server died").text("x").campaign("webhook-it")));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            mailId = QueueApi.receipt(response.body()).getId();
            assertThat(QueueApi.awaitStatus(mailId, MailStatus.SENT, Duration.ofSeconds(30)).getAttempts())
                    .singleElement().satisfies(a -> {
                        assertThat(a.getSmtpReplyCode()).isEqualTo(250);
                        assertThat(a.getSmtpReplyText()).contains("sandbox", "not sent");
                    });
            assertThat(QueueApi.getFrom(SecondServer.BASE, "/health/ready").body()).contains("delivery-mode", "SANDBOX");
            assertThat(java.nio.file.Files.readString(SecondServer.log())).contains("SANDBOX MODE: NO MAIL LEAVES THIS SERVER");
            assertThat(of(mailId)).as("not delivered before the kill").noneMatch(r -> r.answered() == 204);

            assertThat(java.nio.file.Files.readString(SecondServer.log())).contains("webhooks off");
            second.kill();
            DOWN.set(false);
            await().atMost(Duration.ofSeconds(90)).until(() -> of(mailId).stream().anyMatch(r -> r.answered() == 204));
            Thread.sleep(1_500); // a second delivery of a delivered event would come now
            assertThat(smtp.arrivals()).as("the sandbox sent nothing to the account's SMTP server").isEmpty();
        } finally {
            DOWN.set(false);
        }
        List<Received> received = of(mailId);
        assertThat(received).extracting(Received::id).as("one event").containsOnly(received.get(0).id());
        assertThat(received).allSatisfy(r -> assertThat(r.signed()).isTrue());
        assertThat(received.stream().filter(r -> r.answered() == 204)).as("delivered once").hasSize(1);
        assertThat(received.get(0).data()).containsEntry("type", "sent");
    }
}
