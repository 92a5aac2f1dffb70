package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An SMTP account whose server accepts connections and never greets (issue 9): its account is found out
 * once and cools down, so the server sees at most one connection per claimer that met it before it was
 * known down, then one per cool-down (1 s on the test server) plus the greeting timeout (2 s for account
 * 'silent'), not one per mail; its mails wait QUEUED with
 * their attempts untouched and nothing in doubt; readiness names the account down (read where the server serves
 * it: {@link Observability}). Once a real SMTP server listens on that port, every mail is delivered exactly once.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class SilentServerIT extends QueueServerIT {

    static final int PORT = Integer.getInteger("it.smtp.silent.port", 3132);
    static final int MAILS = 40;
    static final int CLAIMERS = 4; // mailqueue.dispatch.claimers of the test server

    @Test
    void aServerThatNeverGreetsCostsOneTimeoutPerCoolDownAndItsMailWaitsUntouched() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        List<Socket> held = new ArrayList<>();
        List<EnqueueReceipt> receipts = new ArrayList<>();
        Instant opened;
        Duration silentFor;
        try (ServerSocket silent = new ServerSocket()) {
            silent.setReuseAddress(true);
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), PORT), 100);
            Thread acceptor = new Thread(() -> {
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept()); // accepted, never greeted
                        connections.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            acceptor.start();
            opened = Instant.now();
            for (int i = 0; i < MAILS; i++) {
                receipts.add(QueueApi.enqueue(new MailRequest().from("quiet@sender.example").to("r" + i + "@silent.example")
                        .subject("silent " + i).text("x").account("silent")));
            }
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                HttpResponse<String> ready = Observability.ready();
                assertThat(ready.statusCode()).isEqualTo(200);
                assertThat(ready.body()).contains("\"silent\":\"down since");
            });
            Thread.sleep(8000);
            silentFor = Duration.between(opened, Instant.now());
            for (EnqueueReceipt r : receipts) {
                MailView mail = QueueApi.find(r.getId());
                assertThat(mail.getStatus()).as("mail %d", r.getId()).isIn(MailStatus.QUEUED, MailStatus.SENDING);
                assertThat(mail.getAttempts()).as("no attempt spent, nothing in doubt").isEmpty();
                assertThat(mail.getAttemptsRemaining()).isEqualTo(3);
            }
            for (Socket s : held) {
                s.close();
            }
        }
        // Each claimer may meet the silent server once before the account is known down; from then on one
        // probe per greeting timeout (2 s) plus cool-down (1 s), for the whole server.
        long allowed = CLAIMERS + silentFor.toMillis() / 3000 + 1;
        System.out.printf("silent server: %d connections in %d ms for %d mails (at most %d allowed)%n",
                connections.get(), silentFor.toMillis(), MAILS, allowed);
        assertThat(connections.get()).as("connections to the silent server").isLessThanOrEqualTo((int) allowed);

        try (ScriptedSmtpServer real = ScriptedSmtpServer.start(PORT)) {
            for (EnqueueReceipt r : receipts) {
                QueueApi.awaitStatus(r.getId(), MailStatus.SENT, Duration.ofSeconds(60));
            }
            Thread.sleep(2000);
            assertThat(real.arrivals()).extracting(ScriptedSmtpServer.Arrival::messageId).doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(receipts.stream().map(EnqueueReceipt::getMessageId).toList());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Observability.ready().body().contains("\"silent\":\"up\""));
    }
}
