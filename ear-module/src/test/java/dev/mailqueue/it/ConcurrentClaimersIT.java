package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 1,000 mails become due at one instant and the test server's claimers (4, its
 * {@code mailqueue.dispatch.claimers}) drain them at the same time: every Message-ID arrives exactly
 * once, no row is left SENDING, and the attempt log shows the claimers' work overlapping in time.
 */
class ConcurrentClaimersIT extends QueueServerIT {

    private static final int MAILS = 1_000;

    @Test
    void thousandMailsDrainedByConcurrentClaimersArriveExactlyOnce() throws Exception {
        Instant due = Instant.now().plusSeconds(20);
        List<EnqueueReceipt> receipts = enqueueAll(due);
        assertThat(Instant.now()).as("enqueue must finish before the mails fall due").isBefore(due);

        Duration drained = Duration.between(due, assertDeliveredExactlyOnce(receipts, Duration.ofSeconds(180)));
        List<String[]> attempts = attemptsOf(receipts);
        assertThat(attempts).hasSize(MAILS);
        Map<String, long[]> windows = new HashMap<>();
        for (String[] a : attempts) {
            long started = Long.parseLong(a[2]);
            long finished = Long.parseLong(a[3]);
            windows.merge(a[1], new long[]{started, finished},
                    (x, y) -> new long[]{Math.min(x[0], y[0]), Math.max(x[1], y[1])});
        }
        assertThat(windows).as("claimers (lease owners)").hasSizeGreaterThanOrEqualTo(3);
        assertThat(maxOverlap(windows.values())).as("claimers working at the same instant").isGreaterThanOrEqualTo(3);
        // A figure for the log, not a target: timing belongs to the benchmark.
        System.out.printf("%d mails drained by %d claimers in %d ms after falling due%n",
                MAILS, windows.size(), drained.toMillis());
    }

    private static List<EnqueueReceipt> enqueueAll(Instant due) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<EnqueueReceipt>> futures = new ArrayList<>();
            for (int i = 0; i < MAILS; i++) {
                int n = i;
                futures.add(pool.submit(() -> QueueApi.enqueue(new MailRequest().from("bulk@sender.example")
                        .to("reader" + (n % 50) + "@to.example").subject("bulk " + n).text("mail number " + n)
                        .notBefore(due))));
            }
            List<EnqueueReceipt> receipts = new ArrayList<>();
            for (Future<EnqueueReceipt> f : futures) {
                receipts.add(f.get());
            }
            return receipts;
        } finally {
            pool.shutdownNow();
        }
    }


    /** @return the most windows that contain one common instant */
    private static int maxOverlap(Iterable<long[]> windows) {
        List<long[]> list = new ArrayList<>();
        windows.forEach(list::add);
        int best = 0;
        for (long[] w : list) {
            long t = w[0];
            int covering = (int) list.stream().filter(o -> o[0] <= t && t <= o[1]).count();
            best = Math.max(best, covering);
        }
        return best;
    }
}
