package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What every integration test class runs against: the real EAR on the Liberty test server (configured
 * in its server.xml with the role mapping, as in production; the build puts it into apps/), beside it
 * the probe and caller applications (put there once per run by {@link HelperApplications}), and a GreenMail
 * SMTP server in this JVM that the test server's mail session points at (started before each class's tests; a
 * test may stop and restart it).
 * Tests run as a client of the server: HTTP and SMTP only.
 */
@ExtendWith({HelperApplications.class, ArquillianExtension.class})
@RunAsClient
abstract class QueueServerIT {

    /**
     * The JUnit tag of the test classes whose outcome does not depend on the database: they check the HTTP
     * layer, security, input refused before any statement runs, the server's start, or the SMTP side. The
     * default (Derby) build runs them; the PostgreSQL and MariaDB profiles leave them out
     * ({@code it.excluded.groups} in ear-module/pom.xml), so CI runs each of them once on Liberty.
     */
    static final String DATABASE_NEUTRAL = "database-neutral";

    static final SmtpCatcher SMTP = new SmtpCatcher();

    static {
        // Awaitility fails a wait with any exception that escapes any thread meanwhile. GreenMail's
        // connection threads throw one whenever a client drops a connection in the middle of DATA, and
        // the queue does that on purpose (a mail whose claimer's outcome before it is not yet committed is aborted
        // before its final "."). What the tests judge is what arrived, not GreenMail's threads.
        org.awaitility.Awaitility.doNotCatchUncaughtExceptionsByDefault();
    }

    /** The Liberty test server's name, as the build created it. */
    static final String SERVER_NAME = System.getProperty("it.server.name", "mailqueue-it");

    /**
     * Waits (at most {@code atMost}) until every mail of {@code receipts} has arrived at the SMTP server, then until
     * nothing has arrived for 3 s (longer than the test servers' longest backoff, so a late copy would show), then
     * checks that each Message-ID arrived exactly once, counted by arrivals (a mail that arrived three times counts
     * three), that none of the rows is left SENDING and that none of the mails is unfinished (queued, due later or
     * being sent). Mails of other tests that arrive meanwhile are not counted.
     *
     * @return when the last of them arrived
     */
    static Instant assertDeliveredExactlyOnce(List<EnqueueReceipt> receipts, Duration atMost) {
        Set<String> expected = receipts.stream().map(EnqueueReceipt::getMessageId).collect(Collectors.toSet());
        assertThat(expected).as("distinct Message-IDs").hasSize(receipts.size());
        Instant deadline = Instant.now().plus(atMost);
        // the cheap count first, then the Message-IDs (reading 10,000 of them takes a while)
        await().atMost(atMost).pollInterval(Duration.ofMillis(500)).until(() -> SMTP.received().size() >= receipts.size());
        await().atMost(Duration.between(Instant.now(), deadline).plusSeconds(5)).pollInterval(Duration.ofSeconds(1))
                .until(() -> arrivals(expected).size() == expected.size());
        Instant arrived = Instant.now();
        awaitQuiet(() -> SMTP.received().size(), Duration.ofSeconds(3));

        Map<String, Long> arrivals = arrivals(expected);
        assertThat(arrivals.keySet()).isEqualTo(expected);
        Map<String, Long> repeated = arrivals.entrySet().stream().filter(e -> e.getValue() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertThat(repeated).as("Message-IDs that arrived more than once, with their arrivals").isEmpty();

        long first = firstId(receipts);
        long last = lastId(receipts);
        await().atMost(Duration.ofSeconds(30)).until(() -> QueueApi.get(
                "/probe/db?op=sending&from=" + first + "&to=" + last).body().strip(), "0"::equals);
        assertThat(unfinished(receipts)).as("mails not finished (queued, due later or sending)").isZero();
        return arrived;
    }

    /** @return how many of the mails of {@code receipts} are still in the queue: queued, due later or being sent */
    static long unfinished(List<EnqueueReceipt> receipts) {
        String ids = receipts.stream().map(r -> Long.toString(r.getId())).collect(Collectors.joining(","));
        HttpResponse<String> response = QueueApi.postTo("/probe/db?op=unfinished-ids", ids);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Long.parseLong(response.body().strip());
    }

    /**
     * Waits (at most 60 s) until an SMTP server has received nothing for {@code quiet}. Given 3 s, that is longer than
     * the test servers' longest backoff (1.2 s) and than a mail taken back from a dead claimer needs to be sent again,
     * so that a late copy would have arrived.
     *
     * @param arrivals how many messages the SMTP server has received so far
     */
    static void awaitQuiet(java.util.function.IntSupplier arrivals, Duration quiet) {
        long[] seen = {arrivals.getAsInt(), System.nanoTime()};
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> {
            long now = arrivals.getAsInt();
            if (now != seen[0]) {
                seen[0] = now;
                seen[1] = System.nanoTime();
            }
            return System.nanoTime() - seen[1] >= quiet.toNanos();
        });
    }

    /** @return how often each of {@code messageIds} has arrived at the SMTP server so far, those that did */
    static Map<String, Long> arrivals(Set<String> messageIds) {
        return SMTP.received().stream().map(SmtpCatcher::messageId).filter(messageIds::contains)
                .collect(Collectors.groupingBy(id -> id, Collectors.counting()));
    }

    /**
     * @return the attempt log of exactly these mails, one {@code [mailId, leaseOwner, startedMs, finishedMs, outcome]}
     *     per attempt (ids are handed out in blocks per server, so a range of ids holds other tests' mails)
     */
    static List<String[]> attemptsOf(List<EnqueueReceipt> receipts) {
        Set<String> ids = receipts.stream().map(r -> Long.toString(r.getId())).collect(Collectors.toSet());
        HttpResponse<String> response = QueueApi.get("/probe/db?op=attempts&from=" + firstId(receipts)
                + "&to=" + lastId(receipts));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().lines().filter(l -> !l.isBlank()).map(l -> l.split(","))
                .filter(a -> ids.contains(a[0])).toList();
    }

    static long firstId(List<EnqueueReceipt> receipts) {
        return receipts.stream().mapToLong(EnqueueReceipt::getId).min().orElseThrow();
    }

    static long lastId(List<EnqueueReceipt> receipts) {
        return receipts.stream().mapToLong(EnqueueReceipt::getId).max().orElseThrow();
    }

    @BeforeAll
    static void startSmtp() {
        SMTP.start();
    }

    @AfterAll
    static void stopSmtp() {
        SMTP.stop();
    }
}
