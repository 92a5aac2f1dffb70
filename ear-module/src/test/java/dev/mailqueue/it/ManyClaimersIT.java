package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * 10,000 mails drained by every claimer at once: on PostgreSQL by two servers sharing the database,
 * each with 4 claimers; on MariaDB by one server with 4. Every Message-ID arrives exactly once, none is
 * lost, no row is left SENDING, and the attempt log shows the claimers of every server at work. Not on
 * Derby: an embedded database cannot be shared, and ConcurrentClaimersIT covers its claimers.
 */
class ManyClaimersIT extends QueueServerIT {

    private static final int MAILS = 10_000; // 20,000 until session 10: halved for .ci/run's time limit
    private static final int BATCH = 1_000;
    private static final int CLAIMERS_PER_SERVER = 4; // mailqueue.dispatch.claimers of the test servers

    @Test
    void tenThousandMailsDrainedByAllClaimersArriveExactlyOnce() throws Exception {
        String db = System.getProperty("it.db", "derby");
        assumeFalse("derby".equals(db), "embedded Derby cannot be shared between claimers of two servers");
        boolean twoServers = "postgresql".equals(db);

        try (SecondServer second = twoServers ? SecondServer.start() : null) {
            Instant start = Instant.now();
            List<EnqueueReceipt> receipts = new ArrayList<>(MAILS);
            for (int b = 0; b < MAILS / BATCH; b++) {
                // Alternate the servers that take the batches, when there are two.
                String base = twoServers && b % 2 == 1 ? SecondServer.BASE : QueueApi.BASE;
                receipts.addAll(enqueueBatch(base, b));
            }
            Instant enqueued = Instant.now();

            Instant drained = assertDeliveredExactlyOnce(receipts, Duration.ofMinutes(6));
            Map<String, Set<String>> claimersByServer = claimersByServer(receipts);
            assertThat(claimersByServer).as("servers that sent").hasSize(twoServers ? 2 : 1);
            claimersByServer.forEach((server, claimers) -> assertThat(claimers)
                    .as("claimers of %s", server).hasSizeGreaterThanOrEqualTo(CLAIMERS_PER_SERVER));
            // A figure for the log, not a target: speed is measured by the benchmark.
            System.out.printf("%d mails on %s: enqueued in %d ms, all arrived %d ms after the first enqueue;"
                            + " claimers per server %s%n", MAILS, db, Duration.between(start, enqueued).toMillis(),
                    Duration.between(start, drained).toMillis(),
                    claimersByServer.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue().size()).toList());
        }
    }

    private static List<EnqueueReceipt> enqueueBatch(String base, int batch) {
        List<String> mails = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            int n = batch * BATCH + i;
            mails.add(QueueApi.toJson(new MailRequest().from("load@sender.example")
                    .to("reader" + (n % 100) + "@load.example").subject("load " + n).text("mail number " + n)));
        }
        HttpResponse<String> response = QueueApi.postTo(base, "/api/mails/batch", "[" + String.join(",", mails) + "]");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        return QueueApi.receipts(response.body());
    }

    /** @return lease owners (claimers) of the mails' attempts, by server ("host/server" before '#') */
    private static Map<String, Set<String>> claimersByServer(List<EnqueueReceipt> receipts) {
        Map<String, Set<String>> result = new HashMap<>();
        attemptsOf(receipts).stream().map(a -> a[1])
                .forEach(owner -> result.computeIfAbsent(owner.substring(0, owner.indexOf('#')), s -> new HashSet<>())
                        .add(owner));
        return result;
    }
}
