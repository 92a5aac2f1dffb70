package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The database goes away for 5 s while a server drains 5,000 mails into a scripted SMTP server that
 * records every message (issue 15, item 1): every connection the server holds breaks and new ones are
 * refused, as in a database restart (a TCP proxy in front of the real database is cut). No mail is
 * lost; a mail arrives twice only if its DATA was in flight (at most one per claimer), and each such
 * duplicate is flagged in doubt; what the claimers could not record meanwhile is recorded when the
 * database answers again, so nothing waits for a lease to run out: the run is drained within the outage
 * plus 30 s of what it would have taken. The outage strikes sends in flight: the SMTP server holds its answer to the
 * DATA of the next messages, the cut comes once one is held, and the answer (250) comes during the outage; each held
 * mail ends SENT. An SMTP client that submits a message meanwhile (issue 30) gets 451 4.3.0,
 * and the same message sent again after the outage is queued and arrives once. Not on Derby, which cannot be put
 * behind a proxy.
 */
class DatabaseOutageIT extends QueueServerIT {

    private static final int MAILS = 5_000;
    private static final int CLAIMERS = 4;
    private static final Duration OUTAGE = Duration.ofSeconds(5);

    @Test
    void aThreeSecondDatabaseOutageLosesNothingAndDelaysTheRunByLittleMoreThanItself() throws Exception {
        String db = System.getProperty("it.db", "derby");
        assumeThat(db).as("the database must be a server behind a proxy").isNotEqualTo("derby");
        int smtpPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            smtpPort = free.getLocalPort();
        }
        int submissionPort = freePort();
        String submission = """
                <variable name="mailqueue.submission.enabled" value="true"/>
                <variable name="mailqueue.submission.port" value="%d"/>
                <variable name="mailqueue.submission.api-url" value="%s"/>
                <variable name="mailqueue.submission.session-deadline.ms" value="1800000"/>
                """.formatted(submissionPort, SecondServer.BASE); // the client holds its connection across the run
        ExecutorService submitter = Executors.newFixedThreadPool(2); // the SMTP client, the release of held DATA
        try (TcpProxy proxy = TcpProxy.to(Integer.parseInt(System.getProperty("it.db.port")));
             ScriptedSmtpServer smtp = ScriptedSmtpServer.start(smtpPort);
             SecondServer second = SecondServer.start(FaultyAccount.config(smtpPort, proxy.port()) + submission);
             SmtpDialog client = new SmtpDialog("localhost", submissionPort)) {
            // An SMTP client (issue 30) logs in at the second server's submission listener before the outage.
            client.startTls();
            assertThat(client.login(TestUser.SENDER)).startsWith("235");
            String submittedId = "<outage-" + System.nanoTime() + "@shop.example>";
            String submitted = "Message-ID: " + submittedId + "\r\nFrom: orders@shop.example\r\nTo: outage@db.example\r\n"
                    + "Subject: submitted during an outage\r\n\r\nsent again until taken\r\n";
            List<EnqueueReceipt> receipts = FaultyAccount.enqueue(MAILS, "outage", "patient", "db.example");
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20))
                    .until(() -> CrashIT.distinct(smtp) >= MAILS / 4);
            // The outage must strike sends in flight: the SMTP server holds its answer to the next messages' DATA,
            // the database is cut once one is held, and the answers (250) come 1 s into the outage, when the
            // claimers cannot record them.
            smtp.holdUntilInFlight(CLAIMERS);
            submitter.submit(() -> {
                Thread.sleep(1_000);
                smtp.releaseHeld();
                return null;
            });
            Instant cutAt = Instant.now();
            long before = CrashIT.distinct(smtp);
            Instant firstArrival = smtp.arrivals().get(0).at();
            double perSecond = before * 1000.0 / Math.max(1, Duration.between(firstArrival, cutAt).toMillis());
            Future<String> duringOutage = submitter.submit(() -> {
                Thread.sleep(500);
                return submit(client, submitted);
            });
            proxy.cut(OUTAGE);
            Instant restored = Instant.now();
            List<String> held = smtp.held();
            assertThat(held).as("mails whose DATA was unanswered when the database went away").isNotEmpty();
            assertThat(duringOutage.get()).as("SMTP submission while the database is away").startsWith("451 4.3.0");

            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> CrashIT.distinct(smtp) >= MAILS);
            Duration afterRestore = Duration.between(restored, Instant.now());
            awaitQuiet(() -> smtp.arrivals().size(), Duration.ofSeconds(3));
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
            assertThat(unfinished(receipts)).as("mails of the run not finished").isZero();
            for (String messageId : held) {
                // its 250 came while the database was away: recorded once it answered again (or, its lease lost,
                // the mail was in doubt and sent again, which the loop above checked)
                assertThat(CrashIT.attemptsOf(byMessageId.get(messageId).getId())).as("attempts of held %s", messageId)
                        .anySatisfy(a -> assertThat(a.getOutcome()).isEqualTo("SENT"));
            }
            System.out.printf("database outage of %d ms on %s: %d mails, %d delivered before it (%.0f/s), %d of them"
                            + " awaiting the answer to DATA when it struck, %d delivered twice, the rest drained %d ms"
                            + " after it (%d ms expected at that rate)%n",
                    Duration.between(cutAt, restored).toMillis(), db, MAILS, before, perSecond, held.size(), twice.size(),
                    afterRestore.toMillis(), expected.toMillis());
            assertThat(arrivals.values().stream().mapToLong(n -> n - 1).sum()).as("duplicate arrivals: only mails whose DATA was in flight")
                    .isLessThanOrEqualTo(CLAIMERS);
            assertThat(afterRestore).as("no stall: drained within the time it takes plus 30 s")
                    .isLessThan(expected.plus(Duration.ofSeconds(30)));

            // The SMTP client sends the refused message again: taken once the database answers, and it arrives once.
            String again = submit(client, submitted);
            assertThat(again).as("SMTP submission once the database is back").startsWith("250 2.0.0 queued as")
                    .contains(submittedId);
            await().atMost(Duration.ofSeconds(30)).until(() -> SMTP.countWithMessageId(submittedId) > 0);
            Thread.sleep(2_000);
            assertThat(SMTP.countWithMessageId(submittedId)).as("arrivals of the submitted mail").isEqualTo(1);
        } finally {
            submitter.shutdownNow();
        }
    }

    /** @return the reply to the end of DATA of one mail transaction, or to the command refused before it */
    private static String submit(SmtpDialog client, String message) throws Exception {
        for (String command : List.of("MAIL FROM:<orders@shop.example>", "RCPT TO:<outage@db.example>", "DATA")) {
            String reply = client.send(command);
            if (!reply.startsWith(command.equals("DATA") ? "354" : "250")) {
                client.send("RSET");
                return reply;
            }
        }
        client.writeRaw(message.getBytes(StandardCharsets.US_ASCII));
        return client.send(".");
    }

    private static int freePort() throws Exception {
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return free.getLocalPort();
        }
    }
}
