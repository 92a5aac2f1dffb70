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
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery events pushed to a webhook receiver (the test's own HTTP server, the endpoint {@code it} of the
 * test servers, which wants the events of campaign {@code webhook-it}). The receiver checks every request
 * as a Standard Webhooks receiver would: the signature over id, timestamp and body under the shared
 * secret, and the timestamp against its clock. A delivered mail brings {@code sent}, a recipient the
 * scripted server refuses {@code refused}, each with the mail's reference, campaign and tags; a receiver
 * that is down for a while gets the event later, with the same id, and accepts each id once; meanwhile the event
 * is parked in the endpoint's delivery list, which a delivered event leaves (events go from the endpoint's cursor
 * in the mails' log, and only a failed one, or one waiting behind it, gets a delivery row). A second
 * endpoint, {@code slow} (listed first, campaign {@code webhook-slow}, which {@code it} wants too), answers
 * 200 and then drips its body a byte a second: it holds up no other endpoint, and its call ends at the test
 * servers' deadline of {@value #DEADLINE_MS} ms.
 */
class WebhookIT extends QueueServerIT {

    static final int RECEIVER_PORT = Integer.getInteger("it.webhook.port", 3134);
    static final int SLOW_RECEIVER_PORT = Integer.getInteger("it.webhook.slow.port", 3135);
    /** mailqueue.webhook.timeout.ms of the test servers. */
    static final long DEADLINE_MS = 2_000;
    static final int SCRIPTED_PORT = Integer.getInteger("it.smtp.backup.port", 3126);
    static final WebhookSignature SIGNATURE = new WebhookSignature(
            WebhookSignature.key("whsec_aXQtd2ViaG9vay1zZWNyZXQtb2YtdGhlLXRlc3Qtc2VydmVycw=="));
    static final String RUN = Long.toString(System.currentTimeMillis(), 36);

    /** One request as the receiver saw it, and when (System.nanoTime). */
    record Received(String id, boolean signed, boolean fresh, int answered, Map<String, Object> data, long at) {
    }

    /** One request as the slow receiver saw it: when it arrived, and when the client closed the connection. */
    record SlowCall(String id, Map<String, Object> data, long at, AtomicLong closedAt) {
    }

    static final List<Received> RECEIVED = new CopyOnWriteArrayList<>();
    static final List<SlowCall> SLOW_CALLS = new CopyOnWriteArrayList<>();
    static final AtomicBoolean DOWN = new AtomicBoolean();
    static HttpServer receiver;
    static ServerSocket slowReceiver;
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
            RECEIVED.add(new Received(id, signed, fresh, status, data, System.nanoTime()));
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        receiver.start();
        slowReceiver = new ServerSocket(SLOW_RECEIVER_PORT, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(() -> {
            while (!slowReceiver.isClosed()) {
                try {
                    Socket connection = slowReceiver.accept();
                    Thread handler = new Thread(() -> drip(connection), "webhook-slow-receiver");
                    handler.setDaemon(true);
                    handler.start();
                } catch (IOException e) {
                    return; // closed
                }
            }
        }, "webhook-slow-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Reads one request, answers 200 with a Content-Length of 100,000 and sends one byte of it a second; notes
     * when the client closes the connection (reading from it then ends or fails).
     */
    static void drip(Socket connection) {
        try (connection) {
            InputStream in = connection.getInputStream();
            String head = readHead(in);
            int at = head.toLowerCase(Locale.ROOT).indexOf("\r\ncontent-length:");
            int length = Integer.parseInt(head.substring(at + 17, head.indexOf('\r', at + 2)).strip());
            String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
            @SuppressWarnings("unchecked")
            Map<String, Object> data = (Map<String, Object>) QueueApi.jsonObject(body).get("data");
            SlowCall call = new SlowCall(String.valueOf(data.get("id")), data, System.nanoTime(), new AtomicLong());
            SLOW_CALLS.add(call);
            OutputStream out = connection.getOutputStream();
            Thread dripping = new Thread(() -> {
                try {
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    for (int i = 0; i < 100_000; i++) {
                        out.write('x');
                        out.flush();
                        Thread.sleep(1_000);
                    }
                } catch (IOException | InterruptedException e) {
                    // the client closed the connection
                }
            }, "webhook-slow-drip");
            dripping.setDaemon(true);
            dripping.start();
            try {
                while (in.read() != -1) {
                    // nothing more is sent on this connection until the client closes it
                }
            } catch (IOException e) {
                // reset by the client: closed as well
            }
            call.closedAt().set(System.nanoTime());
            dripping.interrupt();
        } catch (IOException e) {
            // the request did not arrive whole
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 65_536 && !head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed before the end of the request head");
            }
            head.append((char) c);
        }
        return head.toString();
    }

    @AfterAll
    static void stop() throws IOException {
        receiver.stop(0);
        slowReceiver.close();
        scripted.close();
    }

    static List<Received> of(long mailId) {
        return RECEIVED.stream().filter(r -> r.data() != null && r.data().get("mailId") instanceof Number n
                && n.longValue() == mailId).toList();
    }

    /**
     * The endpoints' rounds run side by side: the slow endpoint (first in the list) is stuck in its call while
     * the well-behaved one gets the same mail's event, and the slow call is closed at its deadline (the receiver
     * sees it), however long the receiver meant to drip. The 200 it answered counts: the event is delivered.
     */
    @Test
    void aReceiverThatDripsItsAnswerHoldsUpNoOtherEndpointAndIsCutOffAtTheDeadline() {
        Instant started = Instant.now();
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("shop@sender.example").to("drip." + RUN + "@hooks.example")
                .subject("Past a slow receiver").text("x").campaign("webhook-slow"));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(20)).until(() -> !slowCallsOf(receipt.getId()).isEmpty());
        SlowCall slow = slowCallsOf(receipt.getId()).get(0);
        await().atMost(Duration.ofSeconds(20)).until(() -> !of(receipt.getId()).isEmpty());
        Received fast = of(receipt.getId()).get(0);
        assertThat(fast.data()).containsEntry("type", "sent").containsEntry("id", slow.id());
        await().atMost(Duration.ofMillis(DEADLINE_MS + 20_000)).until(() -> slow.closedAt().get() != 0);
        long slowCallMillis = TimeUnit.NANOSECONDS.toMillis(slow.closedAt().get() - slow.at());

        assertThat(fast.at()).as("the well-behaved endpoint got the event while the slow call was still open (%d ms)",
                slowCallMillis).isLessThan(slow.closedAt().get());
        assertThat(slowCallMillis).as("the slow call ends at its deadline, not when the receiver is done dripping")
                .isLessThan(DEADLINE_MS + 3_000);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Map<String, Object> endpoint = QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE,
                    "/api/admin/webhooks/slow").body());
            assertThat(endpoint).containsKey("cursorPosition").doesNotContainKey("failingSince");
            assertThat(Instant.parse((String) endpoint.get("lastSuccessAt"))).as("the 200 counts").isAfter(started);
            HttpResponse<String> log = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/webhooks/slow/deliveries");
            assertThat(log.statusCode()).as(log.body()).isEqualTo(200);
            assertThat(log.body()).as("delivered: no delivery row").doesNotContain("\"eventId\":\"" + slow.id() + "\"");
        });
    }

    static List<SlowCall> slowCallsOf(long mailId) {
        return SLOW_CALLS.stream().filter(c -> c.data().get("mailId") instanceof Number n && n.longValue() == mailId).toList();
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
                .as("one log row's recipients, in address order").containsExactly("refused:" + gone, "sent:" + ok);
        @SuppressWarnings("unchecked")
        Map<String, Object> reply = (Map<String, Object>) received.get(0).data().get("reply");
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
            HttpResponse<String> parked = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/webhooks/it/deliveries?status=PENDING");
            assertThat(parked.body()).as("the failed event is parked").contains("\"eventId\":\""
                    + of(receipt.getId()).get(0).id() + "\"", "\"httpStatus\":503");
        } finally {
            DOWN.set(false);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> of(receipt.getId()).stream().anyMatch(r -> r.answered() == 204));
        Thread.sleep(1_500); // rounds every 300 ms: a second delivery of a delivered event would come now

        List<Received> received = of(receipt.getId());
        assertThat(received).extracting(Received::id).as("one event, tried until delivered").containsOnly(received.get(0).id());
        assertThat(received.stream().filter(r -> r.answered() == 204)).as("delivered once").hasSize(1);
        assertThat(received.get(received.size() - 1).answered()).isEqualTo(204);

        HttpResponse<String> log = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/webhooks/it/deliveries");
        assertThat(log.statusCode()).as(log.body()).isEqualTo(200);
        assertThat(log.body()).as("delivered: its delivery row is gone")
                .doesNotContain("\"eventId\":\"" + received.get(0).id() + "\"");
        HttpResponse<String> endpoint = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/webhooks/it");
        assertThat(QueueApi.jsonObject(endpoint.body())).doesNotContainKey("failingSince").containsEntry("disabled", false)
                .containsKeys("lastSuccessAt", "cursorPosition");

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
     * database; neither the mode nor the log's durability depends on the database.
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
