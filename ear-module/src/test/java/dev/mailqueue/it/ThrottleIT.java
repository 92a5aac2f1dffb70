package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Per-account rate limits, measured where they matter: arrival times at a real SMTP server.
 * Account 'throttled' may send 3 per window, its window shortened to 10 s
 * ({@code mailqueue.account.throttled.rate.window.ms}) so that the test does not wait out real minutes;
 * account 'slow' 4 per minute (a real 60 s window), and its server answers 421 4.7.0 when told to.
 *
 * <p>Where it runs: on PostgreSQL two servers share the database and both enqueue, so the limit is
 * proved across servers; on Derby and MariaDB one server with 4 claimers (an embedded Derby cannot be
 * shared), where the limit holds across that server's claimers (job executions) by the same shared
 * rate state in the database.
 */
class ThrottleIT extends QueueServerIT {

    static final int THROTTLED_PORT = Integer.getInteger("it.smtp.throttled.port", 3127);
    static final int SLOW_PORT = Integer.getInteger("it.smtp.slow.port", 3128);
    static final int PER_MINUTE = 3; // mailqueue.account.throttled.rate.per-minute of the test servers
    static final Duration WINDOW = Duration.ofSeconds(10); // mailqueue.account.throttled.rate.window.ms of the test servers

    static ScriptedSmtpServer throttled;
    static ScriptedSmtpServer slow;

    @BeforeAll
    static void startServers() {
        throttled = ScriptedSmtpServer.start(THROTTLED_PORT);
        slow = ScriptedSmtpServer.start(SLOW_PORT);
    }

    /** The Derby database outlives a run: start each test from an account that has sent nothing. */
    @BeforeEach
    void forgetRateState() {
        for (String account : new String[]{"throttled", "slow"}) {
            HttpResponse<String> reset = QueueApi.postForm("/probe/db?op=reset-rate&account=" + account);
            assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
        }
    }

    @AfterAll
    static void stopServers() {
        throttled.close();
        slow.close();
    }

    @Test
    void noWindowAtTheSmtpServerHoldsMoreThanTheLimit() throws Exception {
        boolean twoServers = "postgresql".equals(System.getProperty("it.db", "derby"));
        int mails = 2 * PER_MINUTE;
        try (SecondServer second = twoServers ? SecondServer.start() : null) {
            List<EnqueueReceipt> receipts = new ArrayList<>();
            for (int i = 0; i < mails; i++) {
                String base = twoServers && i % 2 == 1 ? SecondServer.BASE : QueueApi.BASE;
                HttpResponse<String> response = QueueApi.postTo(base, "/api/mails", QueueApi.toJson(new MailRequest()
                        .account("throttled").from("bulk@sender.example").to("list" + i + "@to.example")
                        .subject("throttled " + i).text("x")));
                assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
                receipts.add(QueueApi.receipts("[" + response.body() + "]").get(0));
            }

            Set<String> ours = new HashSet<>();
            receipts.forEach(r -> ours.add(r.getMessageId()));
            // While the rest wait for their window, none of them sits leased (SENDING) for it.
            await().atMost(Duration.ofSeconds(30)).until(() -> arrived(ours) >= PER_MINUTE);
            long first = firstId(receipts);
            long last = lastId(receipts);
            await().atMost(Duration.ofSeconds(10)).until(() -> "0".equals(QueueApi.get(
                    "/probe/db?op=sending&from=" + first + "&to=" + last).body().strip()));
            assertThat(arrived(ours)).as("the others wait").isEqualTo(PER_MINUTE);

            await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                    .until(() -> arrived(ours) >= mails);
            // Every arrival at this account's server counts, ours or not.
            List<Instant> times = throttled.arrivals().stream().map(ScriptedSmtpServer.Arrival::at).sorted().toList();
            for (int i = 0; i + PER_MINUTE < times.size(); i++) {
                assertThat(Duration.between(times.get(i), times.get(i + PER_MINUTE)))
                        .as("arrivals %d and %d: %s", i, i + PER_MINUTE, times)
                        .isGreaterThanOrEqualTo(WINDOW);
            }
            assertThat(Duration.between(times.get(0), times.get(PER_MINUTE - 1)))
                    .as("the first %d go at once, not spread out", PER_MINUTE).isLessThan(WINDOW.dividedBy(2));
            assertThat(throttled.arrivals().stream().filter(a -> ours.contains(a.messageId())).count())
                    .as("each once").isEqualTo(mails);
            for (EnqueueReceipt receipt : receipts) {
                assertThat(QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(20))
                        .getAttempts()).as("held back mail costs no attempt").hasSize(1);
            }
            System.out.printf("rate-limited account, %d per %s, %d mails, %s: arrivals %s%n", PER_MINUTE, WINDOW, mails,
                    twoServers ? "two servers" : "one server", times);
        }
    }

    private static long arrived(Set<String> messageIds) {
        return throttled.arrivals().stream().filter(a -> messageIds.contains(a.messageId())).count();
    }

    @Test
    void a421SlowsTheAccountDownToHalfItsLimit() {
        slow.refuseNext(1, 421, "4.7.0 Too many messages, slow down");
        EnqueueReceipt first = QueueApi.enqueue(new MailRequest().account("slow").from("bulk@sender.example")
                .to("first@to.example").subject("slow 0").text("x"));
        await().atMost(Duration.ofSeconds(30)).until(() -> !slow.refusals().isEmpty());
        Instant refusedAt = slow.refusals().get(0).at();
        for (int i = 1; i <= 4; i++) {
            QueueApi.enqueue(new MailRequest().account("slow").from("bulk@sender.example")
                    .to("next" + i + "@to.example").subject("slow " + i).text("x"));
        }

        // Limit 4, slowed to 2, of which the refused transaction holds one: one more this minute
        // (three without the slow-down).
        await().atMost(Duration.ofSeconds(20)).until(() -> slow.arrivals().size() >= 1);
        // Without the slow-down the other three would go within a dispatch or two (the test servers start one
        // every 500 ms, mailqueue.dispatch.interval.ms); 8 s without a second arrival tells the two apart.
        await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(12)).until(() -> slow.arrivals().size() == 1);
        assertThat(Duration.between(refusedAt, Instant.now())).isLessThan(Duration.ofSeconds(60));
        assertThat(QueueApi.get("/probe/db?op=rate&account=slow").body()).startsWith("2,");
        assertThat(QueueApi.find(first.getId()).getAttempts()).first()
                .satisfies(a -> assertThat(a.getSmtpReplyCode()).isEqualTo(421));
    }
}
