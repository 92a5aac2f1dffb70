package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * A server on a PostgreSQL primary with one synchronous standby (issue 29), given both hosts in one JDBC URL
 * ({@code mailqueue.db.url} with {@code targetServerType=primary}), drains 5,000 mails while the database
 * fails under it: the primary dies and the standby is promoted, or the standby goes away for a while. The
 * server carries on without a restart; no mail is lost; a mail arrives twice only if its DATA was in flight
 * (at most one per claimer), and each such duplicate has an in-doubt attempt; nothing is left unfinished. The
 * primary's death strikes sends in flight (the SMTP server holds its answer to DATA until the primary is gone).
 * The server is the second test server, alone on a primary and standby of the test's own
 * ({@link ReplicatedPostgres}); the figures are printed for the closing note and the databases guide.
 * PostgreSQL profile only.
 */
class FailoverIT extends QueueServerIT {

    private static final int MAILS = 5_000;
    private static final int CLAIMERS = 4; // mailqueue.dispatch.claimers of the test servers
    /** Between the primary's death and the promotion, as a failure detector takes a while to decide. */
    private static final Duration DETECTION = Duration.ofSeconds(2);
    /** Mails of the standby-down phase. */
    private static final int STANDBY_MAILS = 2_500;
    /** How long the only synchronous standby stays down: longer than the test servers' 6 s lease. */
    private static final Duration STANDBY_DOWN = Duration.ofSeconds(10);

    /** Mails of the asynchronous phase, enqueued before its standby falls behind. */
    private static final int ASYNC_MAILS = 1_500;
    /** Mails enqueued while the asynchronous standby receives nothing. */
    private static final int LAG_MAILS = 20;
    /** How long the asynchronous standby receives nothing before the primary dies. */
    private static final Duration LAG = Duration.ofSeconds(3);

    /** The scripted SMTP server's port, free on the loopback interface. */
    private int smtpPort;

    @BeforeEach
    void onPostgresOnly() throws IOException {
        assumeThat(System.getProperty("it.db", "derby")).as("streaming replication is PostgreSQL's").isEqualTo("postgresql");
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            smtpPort = free.getLocalPort();
        }
    }

    /**
     * One primary and standby and one server for all failures, one after the other (a pair and a server
     * start cost about 30 s): first the standby goes away for a while, then the primary dies; then the old
     * primary rejoins as an asynchronous standby, falls behind, and is promoted when the new primary dies.
     */
    @Test
    void theQueueOutlivesItsStandbyGoingAwayAndThenItsPrimaryDyingWithNoMailLostAndOnlyInFlightMailsInDoubt()
            throws Exception {
        try (ReplicatedPostgres database = ReplicatedPostgres.start("mailqueue", "mailqueue");
             ScriptedSmtpServer smtp = ScriptedSmtpServer.start(smtpPort);
             SecondServer second = startOn(database, smtpPort)) {
            standbyDown(database, smtp);
            primaryLost(database, smtp, CrashIT.distinct(smtp));
            asynchronousStandbyBehind(database, smtp);
        }
    }

    /**
     * What asynchronous replication costs, shown rather than hidden: the old primary rejoins as an asynchronous
     * standby of the new one; while 1,500 mails drain it stops receiving for 3 s (a slow or broken link), during
     * which 20 more mails are enqueued, each answered 202; then the primary dies and the standby that fell behind
     * is promoted. Everything committed during those 3 s is gone: the 20 mails enqueued then are unknown to the
     * new primary (lost, unless sent before the death), and every mail whose outcome was committed then is sent
     * again, most without an in-doubt attempt, for its claim is gone too. What the promoted standby knows still
     * says a mail is to be sent, never that it was sent when it was not: every mail it knows arrives at least
     * once, and nothing is left unfinished.
     */
    private static void asynchronousStandbyBehind(ReplicatedPostgres database, ScriptedSmtpServer smtp) throws Exception {
        Instant rejoining = Instant.now();
        database.rejoinOldPrimaryAsAsyncStandby();
        Duration rejoin = Duration.between(rejoining, Instant.now());
        List<EnqueueReceipt> known = FaultyAccount.enqueue(ASYNC_MAILS, "async", "replicated", "ha.example");
        java.util.Set<String> knownIds = known.stream().map(EnqueueReceipt::getMessageId).collect(Collectors.toSet());
        java.util.function.LongSupplier arrived = () -> smtp.arrivals().stream()
                .filter(a -> knownIds.contains(a.messageId())).map(ScriptedSmtpServer.Arrival::messageId).distinct().count();
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> arrived.getAsLong() >= ASYNC_MAILS / 3);
        database.cutReplicationToOldPrimary();
        Instant cut = Instant.now();
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < LAG_MAILS; i++) {
            batch.add(QueueApi.toJson(new MailRequest().from("async@sender.example").to("unreplicated" + i + "@ha.example")
                    .subject("async lag " + i).text("mail " + i).account("faulty")));
        }
        HttpResponse<String> lagged = QueueApi.postTo(SecondServer.BASE, "/api/mails/batch", "[" + String.join(",", batch) + "]");
        assertThat(lagged.statusCode()).as(lagged.body()).isEqualTo(202);
        List<EnqueueReceipt> unreplicated = QueueApi.receipts(lagged.body());
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), cut.plus(LAG)).toMillis()));
        database.stopNewPrimary();
        Instant died = Instant.now();
        long sentBehind = smtp.arrivals().stream().filter(a -> knownIds.contains(a.messageId()))
                .filter(a -> a.at().isAfter(cut) && a.at().isBefore(died)).count();
        database.promoteOldPrimary();
        Instant promoted = Instant.now();

        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> arrived.getAsLong() >= ASYNC_MAILS);
        Duration drained = Duration.between(promoted, Instant.now());
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> ReplicatedPostgres.query(database.primaryPort(), "mailqueue",
                        "SELECT COUNT(*) FROM mailqueue.mail_queue"), "0"::equals);
        Duration finished = Duration.between(promoted, Instant.now());
        Map<String, Long> arrivals = smtp.arrivals().stream().filter(a -> knownIds.contains(a.messageId()))
                .collect(Collectors.groupingBy(ScriptedSmtpServer.Arrival::messageId, Collectors.counting()));
        long duplicates = arrivals.values().stream().mapToLong(n -> n - 1).sum();
        String ids = unreplicated.stream().map(r -> String.valueOf(r.getId())).collect(Collectors.joining(","));
        long unknown = LAG_MAILS - Long.parseLong(ReplicatedPostgres.query(database.primaryPort(), "mailqueue",
                "SELECT COUNT(*) FROM mailqueue.mail_message WHERE id IN (" + ids + ")"));
        java.util.Set<String> lagIds = unreplicated.stream().map(EnqueueReceipt::getMessageId).collect(Collectors.toSet());
        long lagSent = smtp.arrivals().stream().filter(a -> lagIds.contains(a.messageId())).map(ScriptedSmtpServer.Arrival::messageId)
                .distinct().count();
        System.out.printf("asynchronous standby %d ms behind when promoted: %d of %d mails enqueued meanwhile unknown to it"
                        + " (%d of those were sent before the primary died), %d mails sent meanwhile, %d arrivals twice;"
                        + " every mail it knew had arrived %d ms after the promotion, and none was left to send %d ms"
                        + " after it (the rejoin took %d ms)%n", LAG.toMillis(), unknown,
                LAG_MAILS, lagSent, sentBehind, duplicates, drained.toMillis(), finished.toMillis(), rejoin.toMillis());
        assertThat(arrivals.keySet()).as("every mail the promoted standby knew arrived at least once").containsAll(knownIds);
        assertThat(unknown).as("mails enqueued (202) while the standby received nothing: gone with the primary")
                .isEqualTo(LAG_MAILS);
        assertThat(duplicates).as("every mail sent while the standby received nothing is sent again")
                .isGreaterThanOrEqualTo(sentBehind);
        assertThat(drained).as("drained within 60 s of the promotion").isLessThan(Duration.ofSeconds(60));
    }

    /**
     * The primary is stopped at once ({@code -m immediate}) a third into the drain and the standby promoted 2 s
     * later: an enqueue meanwhile gets 503 with {@code Retry-After} at once, and the same enqueue sent again
     * with its {@code Idempotency-Key} after the promotion is queued once; the rest drains within 60 s of the
     * promotion and the server is ready again.
     *
     * @param earlier distinct mails that arrived before this phase
     */
    private static void primaryLost(ReplicatedPostgres database, ScriptedSmtpServer smtp, long earlier)
            throws Exception {
        List<EnqueueReceipt> receipts = new ArrayList<>(FaultyAccount.enqueue(MAILS, "failover", "steady", "ha.example"));
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> CrashIT.distinct(smtp) >= earlier + MAILS / 3);
        long before = CrashIT.distinct(smtp) - earlier;
        // The failure must strike sends in flight: the SMTP server holds its answer to the next messages' DATA, the
        // primary stops once one is held, and the answers (250) come while there is no primary to record them.
        int heldBefore = smtp.holdUntilInFlight(CLAIMERS);
        database.stopPrimary();
        Instant stopped = Instant.now();
        smtp.releaseHeld();
        List<String> allHeld = smtp.held();
        List<String> held = allHeld.subList(heldBefore, allHeld.size());
        assertThat(held).as("mails whose DATA was unanswered when the primary stopped").isNotEmpty();
        MailRequest meanwhile = new MailRequest().from("failover@sender.example").to("meanwhile@ha.example")
                .subject("queued again after the failover").text("sent once").account("faulty");
        String json = QueueApi.toJson(meanwhile);
        HttpResponse<String> refused = QueueApi.postWithKey(SecondServer.BASE, TestUser.SENDER, json, "failover-1");
        assertThat(refused.statusCode()).as("an enqueue while there is no primary: " + refused.body()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(refused.headers().firstValue("Retry-After")).as("Retry-After").isPresent();
        assertThat(Duration.between(stopped, Instant.now())).as("refused at once, not after the detection").isLessThan(DETECTION);
        Thread.sleep(Duration.between(Instant.now(), stopped.plus(DETECTION)).toMillis());
        database.promoteStandby();
        Instant promoted = Instant.now();
        // the client tries again, with the same key, until the queue takes it: queued once, however often it was sent
        HttpResponse<String> taken = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> QueueApi.postWithKey(SecondServer.BASE, TestUser.SENDER, json, "failover-1"),
                        answer -> answer.statusCode() == 202 || answer.statusCode() == 200);
        EnqueueReceipt again = QueueApi.receipt(taken.body());
        HttpResponse<String> repeated = QueueApi.postWithKey(SecondServer.BASE, TestUser.SENDER, json, "failover-1");
        assertThat(repeated.statusCode()).as(repeated.body()).isEqualTo(200);
        assertThat(QueueApi.receipt(repeated.body()).getId()).isEqualTo(again.getId());
        receipts.add(again);
        System.out.printf("failover: primary stopped after %d of %d mails arrived, %d of them awaiting the answer to"
                + " DATA, standby promoted %d ms later%n", before, MAILS, held.size(), DETECTION.toMillis());

        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> CrashIT.distinct(smtp) >= earlier + MAILS + 1);
        Duration drained = Duration.between(promoted, Instant.now());
        Instant resumed = smtp.arrivals().stream().map(ScriptedSmtpServer.Arrival::at).filter(promoted::isBefore)
                .min(Instant::compareTo).orElseThrow();

        awaitQuiet(() -> smtp.arrivals().size(), Duration.ofSeconds(3));
        long duplicates = assertNoneLostAndEveryDuplicateInDoubt(smtp, receipts, database.standbyPort());
        Map<String, EnqueueReceipt> byMessageId = receipts.stream()
                .collect(Collectors.toMap(EnqueueReceipt::getMessageId, Function.identity()));
        for (String messageId : held) {
            // its 250 came with no primary: recorded on the promoted standby, or (its lease lost) sent again in doubt
            assertThat(attemptsOf(byMessageId.get(messageId).getId())).as("attempts of held %s", messageId)
                    .anySatisfy(a -> assertThat(a.getOutcome()).isEqualTo("SENT"));
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> QueueApi.getFrom(SecondServer.BASE, "/health/ready").statusCode() == 200);
        assertThat(Files.readString(SecondServer.log())).as("the wake-up listener, on the new primary")
                .contains("listening on PostgreSQL channel mailqueue_enqueued")
                .contains("listening on channel mailqueue_enqueued again");
        System.out.printf("failover on PostgreSQL with a synchronous standby: %d mails, %d arrived twice (at most %d"
                        + " allowed), the first mail after the promotion arrived %d ms after it, all %d ms after it%n",
                MAILS, duplicates, CLAIMERS, Duration.between(promoted, resumed).toMillis(), drained.toMillis());
        assertThat(duplicates).as("duplicate arrivals: only mails whose DATA was in flight").isLessThanOrEqualTo(CLAIMERS);
        assertThat(drained).as("drained within 60 s of the promotion").isLessThan(Duration.ofSeconds(60));
    }

    /**
     * The only synchronous standby is stopped for 10 s while the server drains 2,500 mails, so every commit on
     * the primary waits (PostgreSQL's {@code statement_timeout} does not end the wait). The queue does not run
     * ahead of its record: each claimer sends at most the one mail whose outcome it is waiting to commit, then
     * stops. When the standby is back the waiting commits return and the rest drains: no mail lost, a mail
     * sent twice only with an in-doubt attempt. Readiness says 503 meanwhile (its {@code dispatch-record} check
     * sees the commit waiting), and the figures (how many mails arrived while commits waited, how long the drain
     * took after) are printed for the databases guide.
     */
    private static void standbyDown(ReplicatedPostgres database, ScriptedSmtpServer smtp) throws Exception {
        List<EnqueueReceipt> receipts = FaultyAccount.enqueue(STANDBY_MAILS, "standby", "patient", "ha.example");
        assertThat(ReplicatedPostgres.query(database.primaryPort(), "mailqueue", "SELECT COUNT(*) FROM mailqueue.mail_message"))
                .as("the server stores its mail in the replicated pair")
                .isEqualTo(String.valueOf(STANDBY_MAILS));
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> CrashIT.distinct(smtp) >= STANDBY_MAILS / 3);
        database.stopStandby();
        Instant stopped = Instant.now();
        long atStop = smtp.arrivals().size();
        Thread.sleep(STANDBY_DOWN.toMillis() * 7 / 10); // longer than the readiness check's 5 s
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpResponse<String> ready = client.send(HttpRequest.newBuilder(URI.create(SecondServer.BASE + "/health/ready"))
                .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.ofString());
        String readiness = ready.statusCode() + " " + ready.body();
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), stopped.plus(STANDBY_DOWN)).toMillis()));
        long whileWaiting = smtp.arrivals().size() - atStop;
        database.startStandby();
        Instant back = Instant.now();

        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> CrashIT.distinct(smtp) >= STANDBY_MAILS);
        Duration drained = Duration.between(back, Instant.now());
        long duplicates = assertNoneLostAndEveryDuplicateInDoubt(smtp, receipts, database.primaryPort());
        String inDoubt = ReplicatedPostgres.query(database.primaryPort(), "mailqueue",
                "SELECT COUNT(*) FROM mailqueue.mail_attempt WHERE outcome = 'IN_DOUBT'");
        System.out.printf("synchronous standby down for %d ms: %d mails arrived while commits waited (at most %d"
                        + " allowed), readiness answered %s, %d arrived twice, %s in-doubt attempts, all arrived %d ms"
                        + " after the standby was back%n", STANDBY_DOWN.toMillis(), whileWaiting, CLAIMERS, readiness,
                duplicates, inDoubt, drained.toMillis());
        assertThat(ready.statusCode()).as("readiness while commits wait: " + readiness).isEqualTo(503);
        assertThat(Observability.checks(ready.body())).as(readiness).containsEntry("dispatch-record", "DOWN")
                .containsEntry("database", "UP");
        assertThat(whileWaiting).as("mails sent while no outcome could be committed: one per claimer at most")
                .isLessThanOrEqualTo(CLAIMERS);
        assertThat(duplicates).as("duplicate arrivals").isLessThanOrEqualTo(CLAIMERS);
        assertThat(drained).as("drained within 60 s of the standby's return").isLessThan(Duration.ofSeconds(60));
    }

    /** The second test server on the replicated pair, with the scripted SMTP server's account {@code faulty}. */
    private static SecondServer startOn(ReplicatedPostgres database, int smtpPort) throws Exception {
        return SecondServer.start("""
                <variable name="mailqueue.db.url" value="%s"/>
                <variable name="mailqueue.db.schema" value="mailqueue"/>
                """.formatted(database.url("mailqueue").replace("&", "&amp;")) + FaultyAccount.config(smtpPort, 0));
    }

    /**
     * Every mail of {@code receipts} arrived (other mails' arrivals are not counted); each arrival beyond a
     * mail's first is a send whose outcome was lost,
     * with an in-doubt attempt each; nothing is left unfinished in the database at {@code port}.
     *
     * @return the duplicate arrivals
     */
    private static long assertNoneLostAndEveryDuplicateInDoubt(ScriptedSmtpServer smtp, List<EnqueueReceipt> receipts,
                                                              int port) {
        Map<String, EnqueueReceipt> byMessageId = receipts.stream()
                .collect(Collectors.toMap(EnqueueReceipt::getMessageId, Function.identity()));
        Map<String, Long> arrivals = smtp.arrivals().stream().filter(a -> byMessageId.containsKey(a.messageId()))
                .collect(Collectors.groupingBy(ScriptedSmtpServer.Arrival::messageId, Collectors.counting()));
        assertThat(arrivals.keySet()).as("none lost").containsAll(byMessageId.keySet());
        arrivals.forEach((messageId, times) -> {
            if (times > 1) {
                assertThat(attemptsOf(byMessageId.get(messageId).getId()).stream()
                        .filter(a -> "IN_DOUBT".equals(a.getOutcome())).count())
                        .as("in-doubt attempts of %s, which arrived %d times", messageId, times)
                        .isGreaterThanOrEqualTo(times - 1);
            }
        });
        await().atMost(Duration.ofSeconds(60)).until(() -> ReplicatedPostgres.query(port, "mailqueue",
                "SELECT COUNT(*) FROM mailqueue.mail_queue"), "0"::equals);
        return arrivals.values().stream().mapToLong(n -> n - 1).sum();
    }

    private static List<AttemptView> attemptsOf(long id) {
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, SecondServer.BASE, "/api/admin/mails/" + id + "/attempts");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return QueueApi.attempts(response.body());
    }
}
