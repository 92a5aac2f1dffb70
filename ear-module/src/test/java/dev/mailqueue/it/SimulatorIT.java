package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * What a staging system and the tests of a calling application get: the simulator's addresses at
 * {@code simulator.mailqueue.test} produce the outcome and the events their names promise on a live
 * server without one byte reaching an SMTP server, and a server in SANDBOX mode records every mail as
 * sent while sending nothing.
 */
class SimulatorIT extends QueueServerIT {

    /** Labels unique per run: complaints and bounces put addresses on the suppression list, which a Derby run keeps. */
    static final String RUN = Long.toString(System.currentTimeMillis(), 36);
    static final String AT = "+" + RUN + "@simulator.mailqueue.test";

    @Test
    void eachSimulatorAddressGetsTheOutcomeAndTheEventsItNamesAndNothingIsSent() {
        EnqueueReceipt success = enqueue("success" + AT);
        EnqueueReceipt bounce = enqueue("bounce" + AT);
        EnqueueReceipt defer = enqueue("defer" + AT);
        EnqueueReceipt complaint = enqueue("complaint" + AT);
        EnqueueReceipt suppressed = enqueue("suppressed" + AT);

        QueueApi.awaitStatus(success.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(events(success)).containsExactly("sent success" + AT);

        MailView bounced = QueueApi.awaitStatus(bounce.getId(), MailStatus.FAILED, Duration.ofSeconds(30));
        assertThat(bounced.getRecipients()).singleElement().satisfies(r -> {
            assertThat(r.getStatus()).isEqualTo("REFUSED");
            assertThat(r.getReplyCode()).isEqualTo(550);
            assertThat(r.getEnhancedStatus()).isEqualTo("5.1.1");
        });
        assertThat(events(bounce)).containsExactly("refused bounce" + AT);

        MailView deferred = QueueApi.awaitStatus(defer.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(deferred.getAttempts()).as("refused for now, then accepted").hasSize(2);
        assertThat(events(defer)).containsExactly("deferred -", "sent defer" + AT);

        QueueApi.awaitStatus(complaint.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(events(complaint)).containsExactly("sent complaint" + AT, "complained complaint" + AT));
        assertThat(QueueApi.find(complaint.getId()).getRecipients()).singleElement()
                .satisfies(r -> assertThat(r.getStatus()).isEqualTo("COMPLAINED"));
        EnqueueReceipt again = enqueue("complaint" + AT);
        QueueApi.awaitStatus(again.getId(), MailStatus.SUPPRESSED, Duration.ofSeconds(30)); // a complainer, from then on

        QueueApi.awaitStatus(suppressed.getId(), MailStatus.SUPPRESSED, Duration.ofSeconds(30));
        assertThat(events(suppressed)).containsExactly("suppressed suppressed" + AT);

        for (EnqueueReceipt receipt : List.of(success, bounce, defer, complaint, suppressed, again)) {
            assertThat(SMTP.countWithMessageId(receipt.getMessageId())).as("at the SMTP server").isZero();
        }
    }

    /**
     * A second server in SANDBOX mode, with an SMTP account only it has: its mails are SENT with a reply that
     * says they were not, their events are produced, its health and log say SANDBOX, and its SMTP server
     * sees no connection. It shares the database, so it runs where the database is a server (PostgreSQL;
     * on MariaDB too when asked with -Dit.sandbox.all=true), not on an embedded Derby, and on Liberty only
     * (the second server is a Liberty). The mode is per server and does not touch the database, so one
     * database is enough to prove it; the simulator test above runs on all of them.
     */
    @Test
    void aSandboxServerRecordsEachMailAsSentAndSendsNothing() throws Exception {
        String db = System.getProperty("it.db", "derby");
        assumeThat(db.equals("postgresql") || !db.equals("derby") && Boolean.getBoolean("it.sandbox.all"))
                .as("a second server needs a shared database").isTrue();
        assumeThat(System.getProperty("it.server", "liberty")).as("the second server is a Liberty").isEqualTo("liberty");
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        try (ScriptedSmtpServer smtp = ScriptedSmtpServer.start(port);
             SecondServer sandbox = SecondServer.start(FaultyAccount.config(port, 0)
                     + "<variable name=\"mailqueue.delivery.mode\" value=\"sandbox\"/>\n")) {
            List<EnqueueReceipt> receipts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> response = QueueApi.postTo(SecondServer.BASE, "/api/mails", QueueApi.toJson(new MailRequest()
                        .account("faulty").from("staging@sender.example").to("customer" + i + "." + RUN + "@example.com")
                        .subject("sandboxed " + i).text("x")));
                assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
                receipts.add(QueueApi.receipt(response.body()));
            }
            for (EnqueueReceipt receipt : receipts) {
                MailView mail = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
                assertThat(mail.getAttempts()).singleElement().satisfies(a -> {
                    assertThat(a.getSmtpReplyCode()).isEqualTo(250);
                    assertThat(a.getSmtpReplyText()).contains("sandbox", "not sent");
                });
                assertThat(events(receipt)).singleElement().asString().startsWith("sent customer");
            }
            HttpResponse<String> health = QueueApi.getFrom(SecondServer.BASE, "/health/ready");
            assertThat(health.body()).contains("delivery-mode").contains("SANDBOX");
            assertThat(java.nio.file.Files.readString(SecondServer.log())).contains("SANDBOX MODE: NO MAIL LEAVES THIS SERVER");
            assertThat(smtp.arrivals()).as("nothing reached the account's SMTP server").isEmpty();
        }
    }

    private static EnqueueReceipt enqueue(String to) {
        return QueueApi.enqueue(new MailRequest().from("qa@sender.example").to(to).subject("simulated").text("x"));
    }

    /** @return the mail's events, oldest first, as "type recipient" ("-" for none) */
    @SuppressWarnings("unchecked")
    static List<String> events(EnqueueReceipt receipt) {
        HttpResponse<String> response = QueueApi.get("/api/mails/" + receipt.getId() + "/events");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return QueueApi.jsonList(response.body()).stream().map(e -> {
            Map<String, Object> data = e;
            Object recipient = data.get("recipient");
            return data.get("type") + " " + (recipient == null ? "-" : recipient);
        }).toList();
    }
}
