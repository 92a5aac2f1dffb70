package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * A server killed with SIGKILL twice while it drains 5,000 mails into a scripted SMTP server that
 * records every message (issue 9): started again each time, it drains the rest. Every Message-ID
 * arrives; a mail arrives twice only if it was in flight on one of the killed server's connections
 * (at most claimers × kills), and every such duplicate is a mail whose attempt log says IN_DOUBT;
 * nothing is left SENDING. Each kill strikes a send in flight: the SMTP server holds its answer to the end of DATA of
 * the next messages and the kill comes once one is held; each such mail is then shown in doubt (logged IN_DOUBT and
 * sent again), and the run ends only after a quiet period longer than the backoff, so late copies are counted.
 * The killed server is the second test server, which alone has the account
 * the mails are routed to. Not on Derby, which cannot be shared by two servers.
 */
class CrashIT extends QueueServerIT {

    private static final int MAILS = 5_000;
    private static final int CLAIMERS = 4; // mailqueue.dispatch.claimers of the test servers
    private static final int KILLS = 2;

    @Test
    void aServerKilledMidDispatchLeavesAtMostOneMailPerConnectionInDoubtAndLosesNone() throws Exception {
        assumeThat(System.getProperty("it.db", "derby")).as("a second server needs a shared database").isNotEqualTo("derby");
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        try (ScriptedSmtpServer smtp = ScriptedSmtpServer.start(port);
             SecondServer second = SecondServer.start(FaultyAccount.config(port, 0))) {
            List<EnqueueReceipt> receipts = FaultyAccount.enqueue(MAILS, "crash", "victim", "crash.example");
            Instant started = Instant.now();
            for (int kill = 1; kill <= KILLS; kill++) {
                int mark = kill * MAILS / (KILLS + 1);
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20))
                        .until(() -> distinct(smtp) >= mark);
                // The fault must strike a send in flight: the SMTP server keeps the next messages and holds its
                // answer to their DATA, and the server is killed once one is held.
                int heldBefore = smtp.holdUntilInFlight(CLAIMERS);
                second.kill();
                smtp.releaseHeld();
                System.out.printf("killed the server after %d of %d mails arrived, %d of them awaiting the answer to"
                        + " DATA%n", distinct(smtp), MAILS, smtp.held().size() - heldBefore);
                second.restart();
            }
            List<String> held = smtp.held();
            assertThat(held).as("mails whose DATA was unanswered when a kill struck").hasSizeGreaterThanOrEqualTo(KILLS);
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> distinct(smtp) >= MAILS);
            Duration drained = Duration.between(started, Instant.now());
            // Each of them is in doubt: taken back from the dead claimer, logged IN_DOUBT, and (the test servers'
            // rule: resend) sent again after the backoff.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> held.stream()
                    .allMatch(id -> smtp.arrivals().stream().filter(a -> id.equals(a.messageId())).count() >= 2));
            awaitQuiet(() -> smtp.arrivals().size(), Duration.ofSeconds(3));

            Map<String, Long> arrivals = smtp.arrivals().stream()
                    .collect(Collectors.groupingBy(ScriptedSmtpServer.Arrival::messageId, Collectors.counting()));
            Map<String, EnqueueReceipt> byMessageId = receipts.stream()
                    .collect(Collectors.toMap(EnqueueReceipt::getMessageId, Function.identity()));
            assertThat(arrivals.keySet()).as("none lost").containsAll(byMessageId.keySet());
            List<String> twice = arrivals.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
            assertThat(twice).as("the held mails among those sent twice").containsAll(held);
            for (String messageId : twice) {
                List<AttemptView> attempts = attemptsOf(byMessageId.get(messageId).getId());
                // each arrival beyond the first is a send whose outcome was lost: one in-doubt attempt each
                assertThat(attempts.stream().filter(a -> "IN_DOUBT".equals(a.getOutcome())).count())
                        .as("in-doubt attempts of %s, which arrived %d times", messageId, arrivals.get(messageId))
                        .isGreaterThanOrEqualTo(arrivals.get(messageId) - 1);
            }
            long first = firstId(receipts);
            long last = lastId(receipts);
            await().atMost(Duration.ofSeconds(60)).until(() -> QueueApi.get(
                    "/probe/db?op=sending&from=" + first + "&to=" + last).body().strip(), "0"::equals);
            assertThat(unfinished(receipts)).as("mails of the run not finished").isZero();
            System.out.printf("crash test on %s: %d mails, %d kills, %d delivered twice (at most %d allowed),"
                            + " all arrived %d ms after the first was due%n", System.getProperty("it.db"), MAILS, KILLS,
                    twice.size(), CLAIMERS * KILLS, drained.toMillis());
            assertThat(arrivals.values().stream().mapToLong(n -> n - 1).sum()).as("duplicate arrivals: at most one per connection and kill")
                    .isLessThanOrEqualTo(CLAIMERS * KILLS);
        }
    }

    static long distinct(ScriptedSmtpServer smtp) {
        return smtp.arrivals().stream().map(ScriptedSmtpServer.Arrival::messageId).distinct().count();
    }

    static List<AttemptView> attemptsOf(long id) {
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + id + "/attempts");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return QueueApi.attempts(response.body());
    }
}
