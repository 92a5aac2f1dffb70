package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An account that sends through the Amazon SES v2 API instead of SMTP ({@code mailqueue.account.ses.relay=ses}),
 * against a real SES endpoint of a third party: the emulator {@code aws-ses-v2-local} ({@link LocalSes}), which takes
 * the queue's SigV4-signed {@code SendEmail} requests with raw content, answers with a {@code MessageId} and keeps
 * what it took. A proxy of the test ({@link TcpProxy}) sits between the queue and the emulator, to refuse connections
 * or to lose SES's answers after the request reached it. What SES got is read off the emulator's store, a tool that
 * shares no code with the queue.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class SesAccountIT extends QueueServerIT {

    private static final Pattern REPLY = Pattern.compile("250 Ok (\\S+)");
    private static final Pattern DOWN = Pattern.compile("\"ses\"\\s*:\\s*\"down since");
    private static TcpProxy proxy;

    @BeforeAll
    static void startSes() throws Exception {
        LocalSes.start();
        proxy = TcpProxy.on(Integer.getInteger("it.ses.port", 3141), LocalSes.PORT);
    }

    @AfterAll
    static void stopSes() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        LocalSes.stop();
    }

    @Test
    void aMailLeavesThroughSesWithItsMessageIdKeptOnTheAttempt() throws Exception {
        String subject = "Grüße über SES " + System.nanoTime();
        EnqueueReceipt receipt = QueueApi.enqueue(mail(subject).to("ana@ses.example", "ben@ses.example")
                .cc("cleo@ses.example").html("<p>über <b>SES</b></p>"));

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
        assertThat(mail.getString("from")).contains("news@sender.example");
        JsonObject destination = mail.getJsonObject("destination");
        assertThat(destination.getJsonArray("to").toString()).contains("ana@ses.example", "ben@ses.example");
        assertThat(destination.getJsonArray("cc").toString()).contains("cleo@ses.example");
        assertThat(mail.getJsonObject("body").getString("html")).contains("<b>SES</b>");
        assertThat(mail.getJsonObject("body").getString("text")).contains("sent through the SES API");
        var dispatch = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/dispatch");
        assertThat(dispatch.body()).as("the admin API says how the account logs in")
                .containsPattern("\"name\"\\s*:\\s*\"ses\"[^}]*\"login\"\\s*:\\s*\\{\\s*\"kind\"\\s*:\\s*\"aws-sigv4\"");
    }

    @Test
    void aRequestWhoseAnswerIsLostLeavesTheMailInDoubtAndEachAttemptIsOneRequest() throws Exception {
        String subject = "answer lost " + System.nanoTime();
        proxy.loseAnswers(true);
        EnqueueReceipt receipt;
        try {
            receipt = QueueApi.enqueue(mail(subject).to("doubt@ses.example"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !QueueApi.find(receipt.getId()).getAttempts().isEmpty());
        } finally {
            proxy.loseAnswers(false);
        }
        assertThat(proxy.answerBytesLost()).as("SES's answer was lost (the fault landed)").isPositive();
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
    void whileSesCannotBeReachedTheMailWaitsWithItsAttemptsUntouched() throws Exception {
        String subject = "unreachable " + System.nanoTime();
        proxy.refuse();
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
            proxy.listen();
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
