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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim knows the accounts' rate limits: a backlog on a throttled account is claimed about as fast as the
 * account may send it, not claimed and handed back again and again, and another account's mail is not held
 * behind it. Account {@code metered} may send 50 per 1 s window (a minute's limit on a shortened window, as
 * ThrottleIT does) to GreenMail, which the server's 4 claimers could outrun many times over. Claims per mail
 * are read from the server's own counters ({@code mailqueue.mails.claimed} against sent and failed), as an
 * operator would. One server on every database: the claimers of one server share what the account may send.
 */
class ThrottledClaimIT extends QueueServerIT {

    private static final int BACKLOG = 600;
    private static final int PER_WINDOW = 50; // mailqueue.account.metered.rate.per-minute of the test servers
    private static final Duration WINDOW = Duration.ofSeconds(1); // its rate.window.ms

    @Test
    void aThrottledBacklogIsClaimedAboutOnceAMailAndOtherMailIsNotHeldBehindIt() throws Exception {
        HttpResponse<String> reset = QueueApi.postForm("/probe/db?op=reset-rate&account=metered");
        assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
        String before = Observability.metrics().body();

        Instant start = Instant.now();
        List<String> mails = new ArrayList<>(BACKLOG);
        for (int i = 0; i < BACKLOG; i++) {
            mails.add(QueueApi.toJson(new MailRequest().account("metered").from("news@sender.example")
                    .to("reader" + i + "@metered.example").subject("metered " + i).text("backlog mail " + i)));
        }
        HttpResponse<String> batch = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", mails) + "]");
        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(202);
        List<EnqueueReceipt> backlog = QueueApi.receipts(batch.body());

        Thread.sleep(1_000); // the backlog is being worked on
        Instant otherQueued = Instant.now();
        EnqueueReceipt other = QueueApi.enqueue(new MailRequest().from("alerts@sender.example")
                .to("oncall@other.example").subject("not behind the backlog").text("sent at once"));
        QueueApi.awaitStatus(other.getId(), MailStatus.SENT, Duration.ofSeconds(20));
        Duration otherLatency = Duration.between(otherQueued, Instant.now());

        Instant drained = assertDeliveredExactlyOnce(backlog, Duration.ofSeconds(90));
        Duration took = Duration.between(start, drained);
        String after = Observability.metrics().body();
        double claimed = delta(before, after, "mailqueue_mails_claimed_total");
        double finished = delta(before, after, "mailqueue_mails_sent_total") + delta(before, after, "mailqueue_mails_failed_total");
        System.out.printf("ThrottledClaimIT: %d mails at %d per %d ms drained in %d ms; claims per finished mail %.3f"
                        + " (%.0f claimed, %.0f finished); the other account's mail sent %d ms after it was queued%n",
                BACKLOG, PER_WINDOW, WINDOW.toMillis(), took.toMillis(), claimed / finished, claimed, finished,
                otherLatency.toMillis());

        assertThat(took).as("the limit held: %d windows at least", BACKLOG / PER_WINDOW - 1)
                .isGreaterThanOrEqualTo(WINDOW.multipliedBy(BACKLOG / PER_WINDOW - 1));
        assertThat(finished).as("mails finished while the test ran").isGreaterThanOrEqualTo(BACKLOG + 1);
        assertThat(claimed / finished).as("claims per finished mail").isLessThanOrEqualTo(1.1);
        assertThat(otherLatency).as("the other account's mail, queued behind a %d-mail backlog", BACKLOG)
                .isLessThan(took.dividedBy(3));
    }

    private static double delta(String before, String after, String counter) {
        String sample = counter + "\\{[^}]*\\}";
        return Observability.value(after, sample) - (before.contains(counter) ? Observability.value(before, sample) : 0);
    }
}
