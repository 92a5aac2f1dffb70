package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The claim knows the accounts' rate limits: a backlog on a throttled account is claimed about as fast as the
 * account may send it, not claimed and handed back again and again, and another account's mail is not held
 * behind it. Account {@code metered} may send 50 per 1 s window (a minute's limit on a shortened window, as
 * ThrottleIT does) to GreenMail, which the server's 4 claimers could outrun many times over. Claims per mail
 * are read from the server's own counters ({@code mailqueue.mails.claimed} against sent and failed), as an
 * operator would. One server on every database: the claimers of one server share what the account may send.
 * Its twin, on PostgreSQL only (it needs a second server), turns the caps off and shows the threshold missed.
 */
class ThrottledClaimIT extends QueueServerIT {

    private static final int BACKLOG = 600;
    private static final int PER_WINDOW = 50; // mailqueue.account.metered.rate.per-minute of the test servers
    private static final Duration WINDOW = Duration.ofSeconds(1); // its rate.window.ms
    private static final double MOST_CLAIMS_PER_MAIL = 1.1;

    /** What one backlog's drain measured. */
    private record Drain(Duration took, double claimed, double finished) {
        double claimsPerMail() {
            return claimed / finished;
        }
    }

    @Test
    void aThrottledBacklogIsClaimedAboutOnceAMailAndOtherMailIsNotHeldBehindIt() throws Exception {
        Drain drain = drain("metered", Observability::metrics, () -> {
            HttpResponse<String> batch = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", backlog("metered")) + "]");
            assertThat(batch.statusCode()).as(batch.body()).isEqualTo(202);
            return QueueApi.receipts(batch.body());
        }, () -> {
            Instant queued = Instant.now();
            EnqueueReceipt other = QueueApi.enqueue(new MailRequest().from("alerts@sender.example")
                    .to("oncall@other.example").subject("not behind the backlog").text("sent at once"));
            QueueApi.awaitStatus(other.getId(), MailStatus.SENT, Duration.ofSeconds(20));
            return Duration.between(queued, Instant.now());
        });

        assertThat(drain.finished()).as("mails finished while the test ran").isGreaterThanOrEqualTo(BACKLOG + 1);
        assertThat(drain.claimsPerMail()).as("claims per finished mail").isLessThanOrEqualTo(MOST_CLAIMS_PER_MAIL);
    }

    /**
     * Negative control: the same backlog on an account that only a second server has, whose claim reads no rate
     * state ({@code mailqueue.dispatch.rate-caps=false}). The limit still holds at the send, but its claimers take
     * the backlog a batch at a time, the limit refuses most of each batch, and the refused mails are claimed again:
     * the threshold above is missed.
     */
    @Test
    void withoutTheCapsTheSameBacklogIsClaimedAgainAndAgainAndMissesTheThreshold() throws Exception {
        assumeThat(System.getProperty("it.db", "derby")).as("a second server on one database; run on PostgreSQL")
                .isEqualTo("postgresql");
        try (SecondServer second = SecondServer.start(FaultyAccount.config(SmtpCatcher.PORT, 0) + """
                <variable name="mailqueue.account.faulty.rate.per-minute" value="%d"/>
                <variable name="mailqueue.account.faulty.rate.window.ms" value="%d"/>
                <variable name="mailqueue.dispatch.rate-caps" value="false"/>
                """.formatted(PER_WINDOW, WINDOW.toMillis()))) {
            Drain drain = drain("faulty",
                    () -> Observability.libertyMetrics(SecondServer.HTTPS_BASE),
                    () -> FaultyAccount.enqueue(BACKLOG, "uncapped", "reader", "uncapped.example"), null);

            assertThat(drain.finished()).as("mails finished while the test ran").isGreaterThanOrEqualTo(BACKLOG);
            assertThat(drain.claimsPerMail()).as("claims per finished mail without the caps")
                    .isGreaterThan(MOST_CLAIMS_PER_MAIL);
        }
    }

    /**
     * Queues a backlog of {@link #BACKLOG} mails on a rate-limited account, waits until each arrived once, and
     * checks that the account's limit held.
     *
     * @param account the account, limited to {@link #PER_WINDOW} per {@link #WINDOW}
     * @param metrics the metrics of the server that sends the account's mail
     * @param enqueue queues the backlog, returns its receipts
     * @param other   a second mail's latency while the backlog is worked on, or null for none
     * @return the drain's time (from the first enqueue to the last arrival) and the sending server's counters
     */
    private static Drain drain(String account, Supplier<HttpResponse<String>> metrics,
                               Supplier<List<EnqueueReceipt>> enqueue, Supplier<Duration> other) throws Exception {
        HttpResponse<String> reset = QueueApi.postForm("/probe/db?op=reset-rate&account=" + account);
        assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
        String before = metrics.get().body();

        Instant start = Instant.now();
        List<EnqueueReceipt> backlog = enqueue.get();
        Duration otherLatency = null;
        if (other != null) {
            Thread.sleep(1_000); // the backlog is being worked on
            otherLatency = other.get();
        }

        Instant drained = assertDeliveredExactlyOnce(backlog, Duration.ofSeconds(90));
        String after = metrics.get().body();
        Drain drain = new Drain(Duration.between(start, drained), delta(before, after, "mailqueue_mails_claimed_total"),
                delta(before, after, "mailqueue_mails_sent_total") + delta(before, after, "mailqueue_mails_failed_total"));
        System.out.printf("ThrottledClaimIT: %d mails of account %s at %d per %d ms drained in %d ms; claims per"
                        + " finished mail %.3f (%.0f claimed, %.0f finished)%s%n", BACKLOG, account, PER_WINDOW,
                WINDOW.toMillis(), drain.took().toMillis(), drain.claimsPerMail(), drain.claimed(), drain.finished(),
                otherLatency == null ? "" : "; the other account's mail sent " + otherLatency.toMillis()
                        + " ms after it was queued");

        assertThat(drain.took()).as("the limit held: %d windows at least", BACKLOG / PER_WINDOW - 1)
                .isGreaterThanOrEqualTo(WINDOW.multipliedBy(BACKLOG / PER_WINDOW - 1));
        if (otherLatency != null) {
            assertThat(otherLatency).as("the other account's mail, queued behind a %d-mail backlog", BACKLOG)
                    .isLessThan(drain.took().dividedBy(3));
        }
        return drain;
    }

    /** @return the backlog's mails as JSON, each to its own recipient */
    private static List<String> backlog(String account) {
        List<String> mails = new ArrayList<>(BACKLOG);
        for (int i = 0; i < BACKLOG; i++) {
            mails.add(QueueApi.toJson(new MailRequest().account(account).from("news@sender.example")
                    .to("reader" + i + "@" + account + ".example").subject(account + " " + i).text("backlog mail " + i)));
        }
        return mails;
    }

    private static double delta(String before, String after, String counter) {
        String sample = counter + "\\{[^}]*\\}";
        return Observability.value(after, sample) - (before.contains(counter) ? Observability.value(before, sample) : 0);
    }
}
