package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The SMTP server goes away for 20 s in the middle of a run (issue 15, item 2): the mails never tried
 * spend no attempt and wait in the queue; only the mails whose SMTP transaction was under way when the
 * server went (at most one per claimer) count a failed or in-doubt attempt; sending resumes within the
 * cool-down (1 s on the test server) of the server's return; every mail arrives, duplicates only among
 * those in doubt. A relay that is simply down spends no attempts either: a mail queued while it is away
 * waits with none logged.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class RelayOutageIT extends QueueServerIT {

    private static final int MAILS = 600;
    private static final int CLAIMERS = 4; // the test server's mailqueue.dispatch.claimers
    private static final Duration OUTAGE = Duration.ofSeconds(20);

    @Test
    void aTwentySecondRelayOutageSpendsAtMostOneAttemptPerClaimerAndSendingResumesWithinTheCoolDown() throws Exception {
        Instant due = Instant.now().plusSeconds(5);
        List<EnqueueReceipt> receipts = new ArrayList<>();
        for (int from = 0; from < MAILS; from += 200) {
            List<String> batch = new ArrayList<>();
            for (int i = from; i < from + 200; i++) {
                batch.add(QueueApi.toJson(new MailRequest().from("bulk@sender.example").to("outage" + i + "@to.example")
                        .subject("outage " + i).text("mail " + i).notBefore(due)));
            }
            HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", batch) + "]");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            receipts.addAll(QueueApi.receipts(response.body()));
        }
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> SMTP.received().size() >= 100);
        List<MimeMessage> before = SMTP.stopKeeping();
        Instant stopped = Instant.now();
        Thread.sleep(OUTAGE.toMillis());
        SMTP.start();
        Instant restarted = Instant.now();

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> !SMTP.received().isEmpty());
        Duration resumedAfter = Duration.between(restarted, Instant.now());
        Set<String> expected = receipts.stream().map(EnqueueReceipt::getMessageId).collect(Collectors.toSet());
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200)).until(() ->
                arrivals(before).keySet().containsAll(expected));
        Duration drained = Duration.between(restarted, Instant.now());

        Map<String, Long> arrivals = arrivals(before);
        List<String> twice = arrivals.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        // Every mail's outcome is recorded (one SENT attempt each), read in one query, not 600 requests.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() ->
                attemptsOf(receipts).stream().filter(a -> a[4].equals("SENT")).count() >= MAILS);
        List<String[]> attempts = attemptsOf(receipts);
        long spent = attempts.stream().filter(a -> !a[4].equals("SENT")).count();
        Map<String, Long> byMessageId = receipts.stream()
                .collect(Collectors.toMap(EnqueueReceipt::getMessageId, EnqueueReceipt::getId));
        for (String messageId : twice) {
            String id = Long.toString(byMessageId.get(messageId));
            // each arrival beyond the first is a send whose outcome was lost: one in-doubt attempt each
            assertThat(attempts.stream().filter(a -> a[0].equals(id) && a[4].equals("IN_DOUBT")).count())
                    .as("in-doubt attempts of %s, which arrived %d times", messageId, arrivals.get(messageId))
                    .isGreaterThanOrEqualTo(arrivals.get(messageId) - 1);
        }
        System.out.printf("relay outage of %d ms: %d mails, %d delivered before it, %d attempts spent, %d delivered"
                        + " twice, sending resumed %d ms after the relay was back, drained %d ms after%n",
                Duration.between(stopped, restarted).toMillis(), MAILS, before.size(), spent, twice.size(),
                resumedAfter.toMillis(), drained.toMillis());
        assertThat(arrivals.keySet()).containsAll(expected);
        assertThat(spent).as("attempts spent: at most the transactions under way when the relay went").isLessThanOrEqualTo(CLAIMERS);
        assertThat(arrivals.values().stream().mapToLong(n -> n - 1).sum()).as("arrivals beyond the first")
                .isLessThanOrEqualTo(CLAIMERS);
        assertThat(resumedAfter).as("within the cool-down plus a claim").isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aMailQueuedWhileTheRelayIsDownWaitsWithoutSpendingAttemptsAndGoesOutWhenItIsBack() {
        SMTP.stop();
        try {
            EnqueueReceipt waiting = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                    .to("nobody-home@to.example").subject("while the server is down").text("x"));
            await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(() -> {
                MailView mail = QueueApi.find(waiting.getId());
                return mail.getAttempts().isEmpty() && mail.getStatus() != MailStatus.FAILED;
            });
            MailView meanwhile = QueueApi.find(waiting.getId());
            assertThat(meanwhile.getAttemptsRemaining()).as("untouched").isEqualTo(3);
            assertThat(meanwhile.getLastError()).contains("unreachable", "attempts untouched");
            SMTP.start();
            MailView sent = QueueApi.awaitStatus(waiting.getId(), MailStatus.SENT, Duration.ofSeconds(30));
            assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("SENT");
            await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(waiting.getMessageId()) == 1);
        } finally {
            SMTP.stop();
            SMTP.start();
        }
    }

    /** @return per Message-ID, how many arrived, before the outage and since */
    private static Map<String, Long> arrivals(List<MimeMessage> before) {
        List<MimeMessage> all = new ArrayList<>(before);
        all.addAll(SMTP.received());
        return all.stream().collect(Collectors.groupingBy(SmtpCatcher::messageId, Collectors.counting()));
    }
}
