package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import jakarta.json.JsonObject;
import org.apache.james.jdkim.DKIMVerifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An account that sends through the Amazon SES v2 API instead of SMTP ({@code mailqueue.account.ses.relay=ses}),
 * against an SES endpoint of a third party: the emulator {@code aws-ses-v2-local} ({@link LocalSes}), which takes
 * the queue's SigV4-signed {@code SendEmail} requests with raw content, answers with a {@code MessageId} and keeps
 * what it took. An HTTP front of the test ({@link SesFront}) sits between the queue and the emulator: it keeps the
 * raw message of each request, refuses connections, loses the emulator's answer after the request reached it, or
 * answers with an error in the shape of SES's JSON protocol (throttled, rejected), which the emulator never gives.
 * What SES got is read off the emulator's store and the front's copy, tools that share no code with the queue; the
 * DKIM signature of the bytes SES got is checked with jDKIM, as {@link DkimIT} does.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class SesAccountIT extends QueueServerIT {

    private static final Pattern REPLY = Pattern.compile("250 Ok (\\S+)");
    private static final Pattern DOWN = Pattern.compile("\"ses\"\\s*:\\s*\"down since");
    private static SesFront front;

    @BeforeAll
    static void startSes() throws Exception {
        LocalSes.start();
        front = new SesFront(Integer.getInteger("it.ses.port", 3141));
    }

    @AfterAll
    static void stopSes() throws Exception {
        if (front != null) {
            front.close();
        }
        LocalSes.stop();
    }

    @Test
    void aMailLeavesThroughSesWithItsMessageIdKeptOnTheAttempt() throws Exception {
        String subject = "Grüße über SES " + System.nanoTime();
        EnqueueReceipt receipt = QueueApi.enqueue(mail(subject).from("news@signed.example").to("ana@ses.example", "ben@ses.example")
                .cc("cleo@ses.example").bcc("dana@ses.example").html("<p>über <b>SES</b></p>"));

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        AttemptView attempt = sent.getAttempts().get(0);
        assertThat(sent.getAttempts()).as("attempts").hasSize(1);
        assertThat(attempt.getAccount()).isEqualTo("ses");
        assertThat(attempt.getSmtpReplyCode()).isEqualTo(250);
        Matcher reply = REPLY.matcher(attempt.getSmtpReplyText());
        assertThat(reply.matches()).as("reply %s", attempt.getSmtpReplyText()).isTrue();
        List<JsonObject> took = LocalSes.withSubject(subject);
        assertThat(took).as("mails SES took with this subject").hasSize(1);
        JsonObject mail = took.get(0);
        assertThat(mail.getString("messageId")).as("SES's message id, kept on the attempt").isEqualTo(reply.group(1));
        assertThat(mail.getString("from")).contains("news@signed.example");
        JsonObject destination = mail.getJsonObject("destination");
        assertThat(destination.getJsonArray("to").toString()).contains("ana@ses.example", "ben@ses.example");
        assertThat(destination.getJsonArray("cc").toString()).contains("cleo@ses.example");
        assertThat(destination.getJsonArray("bcc")).as("blind copies named in the message SES got (its Bcc field)").isEmpty();
        assertThat(mail.getJsonObject("body").getString("html")).contains("<b>SES</b>");
        assertThat(mail.getJsonObject("body").getString("text")).contains("sent through the SES API");
        byte[] raw = front.rawMessages().stream().filter(m -> new String(m, StandardCharsets.UTF_8)
                .contains(receipt.getMessageId())).findFirst().orElseThrow();
        String header = new String(raw, StandardCharsets.UTF_8).split("\r\n\r\n", 2)[0];
        assertThat(header).as("the header section SES got").startsWith("DKIM-Signature:")
                .doesNotContainPattern("(?im)^bcc:").doesNotContain("dana@ses.example");
        String record = DkimIT.publishedRecord();
        assertThat(new DKIMVerifier((method, selector, domain) -> List.of(record)).verify(new ByteArrayInputStream(raw)))
                .as("DKIM signatures of the bytes SES got that verify").hasSize(1);
        var dispatch = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/dispatch");
        assertThat(dispatch.body()).as("the admin API says how the account logs in")
                .containsPattern("\"name\"\\s*:\\s*\"ses\"[^}]*\"login\"\\s*:\\s*\\{\\s*\"kind\"\\s*:\\s*\"aws-sigv4\"");
    }

    @Test
    void aRequestWhoseAnswerIsLostLeavesTheMailInDoubtAndEachAttemptIsOneRequest() throws Exception {
        String subject = "answer lost " + System.nanoTime();
        int lostBefore = front.answersLost();
        front.mode(SesFront.Mode.LOSE_ANSWER);
        EnqueueReceipt receipt;
        try {
            receipt = QueueApi.enqueue(mail(subject).to("doubt@ses.example"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !QueueApi.find(receipt.getId()).getAttempts().isEmpty());
        } finally {
            front.mode(SesFront.Mode.PASS);
        }
        assertThat(front.answersLost() - lostBefore).as("SES's answers lost (the fault landed)").isPositive();
        AttemptView first = QueueApi.find(receipt.getId()).getAttempts().get(0);
        assertThat(first.getOutcome()).isEqualTo("IN_DOUBT");
        assertThat(first.getError()).contains("in doubt", "no answer from Amazon SES");
        assertThat(LocalSes.withSubject(subject)).as("SES took the request whose answer was lost").isNotEmpty();

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        List<String> outcomes = sent.getAttempts().stream().map(AttemptView::getOutcome).toList();
        assertThat(outcomes).as("attempts").startsWith("IN_DOUBT").endsWith("SENT");
        assertThat(LocalSes.withSubject(subject)).as("one request per attempt: the SDK retried nothing")
                .hasSize(outcomes.size());
    }

    @Test
    void aThrottledRequestIsTriedAgainAfterTheBackoffAndTheAccountSlowsDown() throws Exception {
        String subject = "throttled " + System.nanoTime();
        long logMark = QueueState.logMark();
        front.answerNext(1, 429, "TooManyRequestsException", "Maximum sending rate exceeded.");
        EnqueueReceipt receipt = QueueApi.enqueue(mail(subject).to("later@ses.example"));

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("FAILED", "SENT");
        AttemptView throttled = sent.getAttempts().get(0);
        assertThat(throttled.getSmtpReplyCode()).isEqualTo(451);
        assertThat(throttled.getEnhancedStatus()).isEqualTo("4.7.0");
        assertThat(throttled.getError()).contains("TooManyRequestsException", "Maximum sending rate exceeded");
        assertThat(Duration.between(throttled.getFinishedAt(), sent.getAttempts().get(1).getStartedAt()))
                .as("the backoff before the next attempt: mailqueue.delivery.backoff.min.ms (300) less its jitter (25 %)")
                .isGreaterThanOrEqualTo(Duration.ofMillis(225));
        assertThat(String.join("\n", QueueState.logSince(logMark))).as("the server's log")
                .contains("account ses slows down");
        assertThat(LocalSes.withSubject(subject)).as("mails SES took").hasSize(1);
    }

    @Test
    void aRejectedMessageFailsForGood() throws Exception {
        String subject = "rejected " + System.nanoTime();
        int before = front.answeredHere();
        front.answerNext(1, 400, "MessageRejected", "Email address is not verified. The following identities failed"
                + " the check in region EU-WEST-1: news@sender.example");
        EnqueueReceipt receipt = QueueApi.enqueue(mail(subject).to("never@ses.example"));

        MailView failed = QueueApi.awaitStatus(receipt.getId(), MailStatus.FAILED, Duration.ofSeconds(30));

        assertThat(front.answeredHere() - before).as("SES's refusals given").isEqualTo(1);
        assertThat(failed.getAttempts()).singleElement().satisfies(a -> {
            assertThat(a.getOutcome()).isEqualTo("FAILED");
            assertThat(a.getSmtpReplyCode()).isEqualTo(554);
            assertThat(a.getEnhancedStatus()).isEqualTo("5.6.0");
            assertThat(a.getError()).contains("MessageRejected", "not verified");
        });
    }

    @Test
    void whileSesCannotBeReachedTheMailWaitsWithItsAttemptsUntouched() throws Exception {
        String subject = "unreachable " + System.nanoTime();
        front.refuse();
        // The front closed its connections. The queue's HTTP client checks a pooled connection before reuse once it
        // has been idle for 2 s (Apache HttpClient 5's default): one used less than that ago would be taken for open,
        // written to, and the mail left in doubt (the honest verdict when a server goes away right after answering).
        Thread.sleep(2_100);
        EnqueueReceipt receipt;
        try {
            receipt = QueueApi.enqueue(mail(subject).to("waits@ses.example"));
            int attempts = QueueApi.find(receipt.getId()).getAttemptsRemaining();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(SesAccountIT::sesDown);
            Thread.sleep(2_000); // claimers come and go meanwhile
            MailView waiting = QueueApi.find(receipt.getId());
            assertThat(waiting.getStatus()).isEqualTo(MailStatus.QUEUED);
            assertThat(waiting.getAttemptsRemaining()).as("attempts remaining").isEqualTo(attempts);
            assertThat(waiting.getAttempts()).as("attempts").isEmpty();
            assertThat(waiting.getLastError()).contains("ses", "Amazon SES");
        } finally {
            front.listen();
        }
        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(60));
        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("SENT");
        assertThat(LocalSes.withSubject(subject)).hasSize(1);
    }

    @Test
    void aMailForMoreRecipientsThanSesTakesFailsWithoutARequest() throws Exception {
        String subject = "too many " + System.nanoTime();
        String[] recipients = IntStream.range(0, 51).mapToObj(i -> "r" + i + "@ses.example").toArray(String[]::new);
        EnqueueReceipt receipt = QueueApi.enqueue(mail(subject).to(recipients));

        MailView failed = QueueApi.awaitStatus(receipt.getId(), MailStatus.FAILED, Duration.ofSeconds(30));

        assertThat(failed.getAttempts()).singleElement().satisfies(a -> {
            assertThat(a.getOutcome()).isEqualTo("FAILED");
            assertThat(a.getEnhancedStatus()).isEqualTo("5.5.3");
            assertThat(a.getError()).contains("at most 50 recipients");
        });
        assertThat(LocalSes.withSubject(subject)).as("requests made").isEmpty();
    }

    /** @return true when readiness reports account ses down (its claimers found it unreachable) */
    private static boolean sesDown() {
        return DOWN.matcher(Observability.ready().body()).find();
    }

    private static MailRequest mail(String subject) {
        return new MailRequest().account("ses").from("news@sender.example").subject(subject)
                .text("sent through the SES API");
    }
}
