package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
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
 * the probe and caller applications deployed by Arquillian, and a GreenMail SMTP server in this JVM that the test server's
 * mail session points at (started before each class's tests; a test may stop and restart it).
 * Tests run as a client of the server: HTTP and SMTP only.
 */
@ExtendWith(ArquillianExtension.class)
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
        // the queue does that on purpose (a mail whose send-started mark is not yet committed is aborted
        // before its final "."). What the tests judge is what arrived, not GreenMail's threads.
        org.awaitility.Awaitility.doNotCatchUncaughtExceptionsByDefault();
    }

    /** The Liberty test server's name, as the build created it. */
    static final String SERVER_NAME = System.getProperty("it.server.name", "mailqueue-it");

    @Deployment(name = "probe", order = 1, testable = false)
    static WebArchive probe() {
        return Deployments.probe();
    }

    @Deployment(name = "caller", order = 2, testable = false)
    static WebArchive caller() {
        return Deployments.caller();
    }

    /**
     * Waits (at most {@code atMost}) until the SMTP server holds exactly the mails of {@code receipts},
     * then checks each Message-ID arrived exactly once and that none of the rows is left SENDING.
     *
     * @return when the last of them arrived
     */
    static Instant assertDeliveredExactlyOnce(List<EnqueueReceipt> receipts, Duration atMost) {
        Set<String> expected = receipts.stream().map(EnqueueReceipt::getMessageId).collect(Collectors.toSet());
        assertThat(expected).as("distinct Message-IDs").hasSize(receipts.size());
        await().atMost(atMost).pollInterval(Duration.ofMillis(500))
                .until(() -> SMTP.received().size() >= receipts.size());
        Instant arrived = Instant.now();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> SMTP.received().size() == receipts.size());

        Map<String, Long> arrivals = SMTP.received().stream()
                .collect(Collectors.groupingBy(SmtpCatcher::messageId, Collectors.counting()));
        assertThat(arrivals.keySet()).isEqualTo(expected);
        assertThat(arrivals.values()).as("each Message-ID exactly once").containsOnly(1L);

        long first = firstId(receipts);
        long last = lastId(receipts);
        await().atMost(Duration.ofSeconds(30)).until(() -> QueueApi.get(
                "/probe/db?op=sending&from=" + first + "&to=" + last).body().strip(), "0"::equals);
        return arrived;
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
