package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
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
 * The database goes away for 3 s while a server drains 5,000 mails into a scripted SMTP server that
 * records every message (issue 15, item 1): every connection the server holds breaks and new ones are
 * refused, as in a database restart (a TCP proxy in front of the real database is cut). No mail is
 * lost; a mail arrives twice only if its DATA was in flight (at most one per claimer), and each such
 * duplicate is flagged in doubt; what the claimers could not record meanwhile is recorded when the
 * database answers again, so nothing waits for a lease to run out: the run is drained within the outage
 * plus 30 s of what it would have taken. Not on Derby, which cannot be put behind a proxy.
 */
class DatabaseOutageIT extends QueueServerIT {

    private static final int MAILS = 5_000;
    private static final int CLAIMERS = 4;
    private static final Duration OUTAGE = Duration.ofSeconds(3);

    @Test
    void aThreeSecondDatabaseOutageLosesNothingAndDelaysTheRunByLittleMoreThanItself() throws Exception {
        String db = System.getProperty("it.db", "derby");
        assumeThat(db).as("the database must be a server behind a proxy").isNotEqualTo("derby");
        int smtpPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            smtpPort = free.getLocalPort();
        }
        try (TcpProxy proxy = TcpProxy.to(Integer.parseInt(System.getProperty("it.db.port")));
             ScriptedSmtpServer smtp = ScriptedSmtpServer.start(smtpPort);
             SecondServer second = SecondServer.start(FaultyAccount.config(smtpPort, proxy.port()))) {
            List<EnqueueReceipt> receipts = FaultyAccount.enqueue(MAILS, "outage", "patient", "db.example");
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20))
                    .until(() -> CrashIT.distinct(smtp) >= MAILS / 4);
            Instant cutAt = Instant.now();
            long before = CrashIT.distinct(smtp);
            Instant firstArrival = smtp.arrivals().get(0).at();
            double perSecond = before * 1000.0 / Math.max(1, Duration.between(firstArrival, cutAt).toMillis());
            proxy.cut(OUTAGE);
            Instant restored = Instant.now();

            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> CrashIT.distinct(smtp) >= MAILS);
            Duration afterRestore = Duration.between(restored, Instant.now());
            Duration expected = Duration.ofMillis((long) ((MAILS - before) / perSecond * 1000));

            Map<String, Long> arrivals = smtp.arrivals().stream()
                    .collect(Collectors.groupingBy(ScriptedSmtpServer.Arrival::messageId, Collectors.counting()));
            Map<String, EnqueueReceipt> byMessageId = receipts.stream()
                    .collect(Collectors.toMap(EnqueueReceipt::getMessageId, Function.identity()));
            assertThat(arrivals.keySet()).as("none lost").containsAll(byMessageId.keySet());
            List<String> twice = arrivals.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
            for (String messageId : twice) {
                // each arrival beyond the first is a send whose outcome was lost: one in-doubt attempt each
                assertThat(CrashIT.attemptsOf(byMessageId.get(messageId).getId()).stream()
                        .filter(a -> "IN_DOUBT".equals(a.getOutcome())).count())
                        .as("in-doubt attempts of %s, which arrived %d times", messageId, arrivals.get(messageId))
                        .isGreaterThanOrEqualTo(arrivals.get(messageId) - 1);
            }
            long first = firstId(receipts);
            long last = lastId(receipts);
            await().atMost(Duration.ofSeconds(30)).until(() -> QueueApi.get(
                    "/probe/db?op=sending&from=" + first + "&to=" + last).body().strip(), "0"::equals);
            System.out.printf("database outage of %d ms on %s: %d mails, %d delivered before it (%.0f/s), %d delivered"
                            + " twice, the rest drained %d ms after it (%d ms expected at that rate)%n",
                    Duration.between(cutAt, restored).toMillis(), db, MAILS, before, perSecond, twice.size(),
                    afterRestore.toMillis(), expected.toMillis());
            assertThat(arrivals.values().stream().mapToLong(n -> n - 1).sum()).as("duplicate arrivals: only mails whose DATA was in flight")
                    .isLessThanOrEqualTo(CLAIMERS);
            assertThat(afterRestore).as("no stall: drained within the time it takes plus 30 s")
                    .isLessThan(expected.plus(Duration.ofSeconds(30)));
        }
    }
}
