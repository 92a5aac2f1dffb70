package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.RecipientView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The delivery policy against an SMTP server scripted to refuse: the reply decides between retry and
 * giving up, per recipient where the server answers recipients differently, with a growing backoff,
 * and a mail past its expiry is not sent. The test server allows 3 attempts with a backoff of 300 ms
 * doubling up to 1,200 ms (±25%).
 */
class DeliveryPolicyIT extends QueueServerIT {

    static ScriptedSmtpServer scripted;

    @BeforeAll
    static void useTheScriptedServer() {
        SMTP.stop(); // the scripted server takes GreenMail's port for this class
        scripted = ScriptedSmtpServer.start(SmtpCatcher.PORT);
    }

    @AfterAll
    static void stopTheScriptedServer() {
        scripted.close();
    }

    @Test
    void aPermanentRefusalFailsTheMailAtOnceWithoutRetry() {
        scripted.refuseRecipient("gone@to.example", 550, "5.1.1 <gone@to.example>: mailbox unavailable", -1);

        EnqueueReceipt receipt = QueueApi.enqueue(mail("gone@to.example", "permanent"));

        MailView failed = QueueApi.awaitStatus(receipt.getId(), MailStatus.FAILED, Duration.ofSeconds(30));
        assertThat(failed.getAttempts()).singleElement().satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo("FAILED");
            assertThat(attempt.getSmtpReplyCode()).isEqualTo(550);
            assertThat(attempt.getEnhancedStatus()).isEqualTo("5.1.1");
        });
        assertThat(failed.getAttemptsRemaining()).as("a finished mail has no count of attempts left").isNull();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                .until(() -> scripted.rcptCount("gone@to.example") == 1);
    }

    @Test
    void aTransientRefusalIsRetriedAfterAGrowingBackoffUntilAccepted() {
        scripted.refuseRecipient("busy@to.example", 450, "4.2.1 <busy@to.example>: try again later", 2);

        EnqueueReceipt receipt = QueueApi.enqueue(mail("busy@to.example", "transient"));

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        List<AttemptView> attempts = sent.getAttempts();
        assertThat(attempts).extracting(AttemptView::getOutcome).containsExactly("FAILED", "FAILED", "SENT");
        assertThat(attempts.get(0).getEnhancedStatus()).isEqualTo("4.2.1");
        Duration first = Duration.between(attempts.get(0).getFinishedAt(), attempts.get(1).getStartedAt());
        Duration second = Duration.between(attempts.get(1).getFinishedAt(), attempts.get(2).getStartedAt());
        // The jitter spreads each delay by ±25% (RetryPolicy.delayMillis): a first gap of 299 ms is a right one.
        assertThat(first).as("backoff after the 1st failure: 300 ms -25% at least").isGreaterThanOrEqualTo(Duration.ofMillis(225));
        assertThat(second).as("after the 2nd: 600 ms -25% at least").isGreaterThanOrEqualTo(Duration.ofMillis(450));
        assertThat(scripted.arrivalsFor("busy@to.example")).singleElement()
                .satisfies(d -> assertThat(d.messageId()).isEqualTo(receipt.getMessageId()));
    }

    @Test
    void anEnhancedStatusOfClassFourMakesA5xxReplyTransient() {
        // RFC 3463 3.3: a full mailbox is a persistent transient failure, whatever the 552 says.
        scripted.refuseData("full@to.example", 552, "4.2.2 mailbox full", 1);
        scripted.refuseData("toobig@to.example", 552, "message exceeds fixed maximum message size", 1);

        EnqueueReceipt full = QueueApi.enqueue(mail("full@to.example", "mailbox full"));
        EnqueueReceipt tooBig = QueueApi.enqueue(mail("toobig@to.example", "too big"));

        MailView retried = QueueApi.awaitStatus(full.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(retried.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("FAILED", "SENT");
        assertThat(retried.getAttempts().get(0).getEnhancedStatus()).isEqualTo("4.2.2");
        MailView given = QueueApi.awaitStatus(tooBig.getId(), MailStatus.FAILED, Duration.ofSeconds(30));
        assertThat(given.getAttempts()).singleElement()
                .satisfies(a -> assertThat(a.getSmtpReplyCode()).isEqualTo(552));
    }

    @Test
    void recipientsAreSettledOneByOneAndAcceptedOnesAreNeverSentAgain() {
        scripted.refuseRecipient("nobody@to.example", 550, "5.1.1 <nobody@to.example>: no such user", -1);
        scripted.refuseRecipient("later@to.example", 451, "4.3.0 <later@to.example>: temporary lookup failure", 1);

        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("ops@sender.example")
                .to("first@to.example", "nobody@to.example").cc("later@to.example")
                .subject("partly refused").text("x"));

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("FAILED", "SENT");
        assertThat(sent.getRecipients()).extracting(RecipientView::getAddress, RecipientView::getStatus)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("first@to.example", "SENT"),
                        org.assertj.core.groups.Tuple.tuple("nobody@to.example", "REFUSED"),
                        org.assertj.core.groups.Tuple.tuple("later@to.example", "SENT"));
        assertThat(sent.getRecipients()).filteredOn(r -> r.getAddress().startsWith("nobody"))
                .singleElement().satisfies(r -> {
                    assertThat(r.getReplyCode()).isEqualTo(550);
                    assertThat(r.getEnhancedStatus()).isEqualTo("5.1.1");
                });
        assertThat(sent.getLastError()).contains("refused for good").contains("nobody@to.example");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() ->
                scripted.arrivalsFor("first@to.example").size() == 1
                        && scripted.arrivalsFor("later@to.example").size() == 1);
        assertThat(scripted.arrivalsFor("nobody@to.example")).isEmpty();
        assertThat(scripted.rcptCount("nobody@to.example")).as("refused for good: asked once").isEqualTo(1);
        assertThat(scripted.rcptCount("first@to.example")).as("accepted: never sent again").isEqualTo(1);
        assertThat(scripted.arrivalsFor("later@to.example").get(0).messageId()).isEqualTo(receipt.getMessageId());
    }

    @Test
    void aBouncedMailRequeuedByAnAdministratorGoesToTheRecipientThatRefusedIt() {
        scripted.refuseRecipient("moved@to.example", 550, "5.1.1 <moved@to.example>: no such user", 1);
        EnqueueReceipt receipt = QueueApi.enqueue(mail("moved@to.example", "bounced once"));
        MailView bounced = QueueApi.awaitStatus(receipt.getId(), MailStatus.FAILED, Duration.ofSeconds(30));
        assertThat(bounced.getRecipients()).singleElement()
                .satisfies(r -> assertThat(r.getStatus()).isEqualTo("REFUSED"));

        // The mailbox exists again; the operator resends only what bounced.
        HttpResponse<String> requeued = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE,
                "/api/admin/mails/" + receipt.getId() + "/requeue", "");
        assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("FAILED", "SENT");
        assertThat(scripted.arrivalsFor("moved@to.example")).singleElement()
                .satisfies(d -> assertThat(d.messageId()).isEqualTo(receipt.getMessageId()));
    }

    @Test
    void aMailPastItsExpiryIsExpiredNotSent() {
        // A dead worker holds the mail beyond its expiry; when the lease is taken back it is too late. Not due
        // for a second, so that the probe leases it before a live claimer could.
        EnqueueReceipt receipt = QueueApi.enqueue(mail("late@to.example", "expires")
                .notBefore(Instant.now().plusSeconds(1)).expiresAt(Instant.now().plusSeconds(2)));
        HttpResponse<String> leased = QueueApi.postForm("/probe/db?op=lease&id=" + receipt.getId()
                + "&owner=dead-host/dead-server%2301&expiresInMs=3000");
        assertThat(leased.body().strip()).as(leased.body()).isEqualTo("1");

        MailView expired = QueueApi.awaitStatus(receipt.getId(), MailStatus.EXPIRED, Duration.ofSeconds(30));
        // The dead worker's only mail is taken back in doubt (it may have been sent); its expiry is no attempt.
        assertThat(expired.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("IN_DOUBT");
        assertThat(expired.getLastError()).contains("expired");
        assertThat(scripted.rcptCount("late@to.example")).isZero();
    }

    @Test
    void anExpiryInThePastOrBeforeNotBeforeIsRefusedNamingTheField() {
        long before = QueueApi.storedMails();
        HttpResponse<String> past = QueueApi.post(QueueApi.toJson(mail("x@to.example", "past")
                .expiresAt(Instant.now().minusSeconds(60))));
        HttpResponse<String> early = QueueApi.post(QueueApi.toJson(mail("x@to.example", "early")
                .notBefore(Instant.now().plusSeconds(3600)).expiresAt(Instant.now().plusSeconds(60))));

        assertThat(past.statusCode()).isEqualTo(400);
        assertThat(past.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(past.body()).contains("\"field\":\"expiresAt\"").contains("must be in the future");
        assertThat(early.statusCode()).isEqualTo(400);
        assertThat(early.body()).contains("\"field\":\"expiresAt\"").contains("after notBefore");
        assertThat(QueueApi.storedMails()).isEqualTo(before);
    }

    @Test
    void aSendLeftInDoubtByADeadWorkerIsLoggedAndResentWithTheSameMessageId() {
        // Not due for a while, so that the probe leases it before a live claimer could (the probe makes it due
        // at once). One second was too short when this test ran first on a server just started: the enqueue
        // itself took longer, the mail was due when stored, and a claimer took it.
        EnqueueReceipt receipt = QueueApi.enqueue(mail("doubt@to.example", "in doubt")
                .notBefore(Instant.now().plusSeconds(10)));
        HttpResponse<String> leased = QueueApi.postForm("/probe/db?op=lease&id=" + receipt.getId()
                + "&owner=dead-host/dead-server%2302&expiresInMs=1500&sendStarted=true");
        assertThat(leased.body().strip()).as(leased.body()).isEqualTo("1");

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("IN_DOUBT", "SENT");
        assertThat(sent.getAttempts().get(0).getServerInstance()).isEqualTo("dead-host/dead-server");
        assertThat(sent.getAttempts().get(0).getError()).contains("in doubt").contains("same Message-ID");
        assertThat(scripted.arrivalsFor("doubt@to.example")).singleElement()
                .satisfies(d -> assertThat(d.messageId()).isEqualTo(receipt.getMessageId()));
        HttpResponse<String> stats = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/statistics");
        assertThat(stats.statusCode()).as(stats.body()).isEqualTo(200);
        assertThat(((Number) QueueApi.jsonObject(stats.body()).get("inDoubtLast24h")).longValue())
                .as("counted in the statistics").isGreaterThanOrEqualTo(1);
    }

    private static MailRequest mail(String to, String subject) {
        return new MailRequest().from("ops@sender.example").to(to).subject(subject).text("x");
    }
}
