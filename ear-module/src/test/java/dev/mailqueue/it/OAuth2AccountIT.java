package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An SMTP account that logs in as Microsoft 365 and Google want, with SASL {@code XOAUTH2} and an OAuth2 access token,
 * against real parts: the test server's account {@code o365} (client-credentials grant, tokens of
 * {@value #LIFETIME_S} s renewed 2 s before they expire) gets its tokens from a real authorization server
 * ({@link AuthorizationServer}) and sends through a real Dovecot submission server ({@link PrivateDovecot}) that
 * checks every token at that authorization server (RFC 7662 introspection) and relays to GreenMail. Whether a mail
 * went through the authenticated path is read off the mail as GreenMail got it (Dovecot's {@code Received: ... with
 * ESMTPA} header) and off Dovecot's own log, tools that share no code with the queue.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OAuth2AccountIT extends QueueServerIT {

    /** The tokens' lifetime: three lifetimes pass during the 2,000 mails. */
    static final int LIFETIME_S = 6;
    /** The mailbox account o365 logs in as (its session's mail.smtp.user), named in each token. */
    static final String MAILBOX = "sender@o365.mailqueue.test";
    private static final int MAILS = 2_000;
    private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}");

    private static final AuthorizationServer AUTHORIZATION = new AuthorizationServer(LIFETIME_S, MAILBOX);
    private static long logMark;

    @BeforeAll
    static void startServers() throws Exception {
        AUTHORIZATION.start();
        PrivateDovecot.start(AuthorizationServer.introspection(), AuthorizationServer.MAILBOX_CLAIM);
        logMark = QueueState.logMark();
    }

    @AfterAll
    static void stopServers() throws Exception {
        PrivateDovecot.stop();
        AUTHORIZATION.stop();
    }

    /**
     * Runs on Liberty only: what it proves (a connection logs in again between two mails once its token is due,
     * {@code SmtpConnection}) is the queue's own code, the same on both servers; the WildFly run keeps the tests of
     * the login itself (its mail session's XOAUTH2 settings), a revoked token and the authorization server away.
     */
    @Test
    @Order(1)
    @DisabledIfSystemProperty(named = "it.server", matches = "wildfly")
    void twoThousandMailsAcrossThreeTokenLifetimesLeaveWithoutAFailedAttempt() throws Exception {
        long renewalsBefore = login().renewals();
        Instant start = Instant.now();
        List<EnqueueReceipt> receipts = new ArrayList<>();
        int batches = 20;
        Duration spread = Duration.ofSeconds(3L * LIFETIME_S);
        for (int b = 0; b < batches; b++) {
            List<String> mails = new ArrayList<>();
            for (int i = 0; i < MAILS / batches; i++) {
                int n = b * (MAILS / batches) + i;
                mails.add(QueueApi.toJson(mail("reader" + n + "@o365.example", "oauth2 " + n)));
            }
            HttpResponse<String> batch = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", mails) + "]");
            assertThat(batch.statusCode()).as(batch.body()).isEqualTo(202);
            receipts.addAll(QueueApi.receipts(batch.body()));
            Thread.sleep(Math.max(0, start.plus(spread.multipliedBy(b + 1).dividedBy(batches)).toEpochMilli()
                    - System.currentTimeMillis()));
        }
        assertDeliveredExactlyOnce(receipts, Duration.ofSeconds(120));
        Duration took = Duration.between(start, Instant.now());

        List<String[]> attempts = attemptsOf(receipts);
        Map<String, Long> outcomes = attempts.stream().collect(Collectors.groupingBy(a -> a[4], Collectors.counting()));
        assertThat(outcomes).as("attempts by outcome").isEqualTo(Map.of("SENT", (long) MAILS));
        Set<String> ids = receipts.stream().map(EnqueueReceipt::getMessageId).collect(Collectors.toSet());
        List<MimeMessage> received = SMTP.received().stream().filter(m -> ids.contains(SmtpCatcher.messageId(m))).toList();
        for (MimeMessage m : received) {
            assertThat(String.join("\n", m.getHeader("Received"))).as("relayed by Dovecot after an XOAUTH2 login")
                    .contains("with ESMTPA");
        }
        LoginJson login = login();
        System.out.printf("OAuth2AccountIT: %d mails in %d ms with %d-s tokens: %d token renewals, %d refused%n",
                MAILS, took.toMillis(), LIFETIME_S, login.renewals() - renewalsBefore, login.refusals());
        assertThat(took).as("the mails were spread over three token lifetimes").isGreaterThan(spread);
        assertThat(login.renewals() - renewalsBefore).as("tokens received while they were sent")
                .isGreaterThanOrEqualTo(3);
        assertThat(login.refusals()).as("tokens Dovecot refused").isZero();
        assertThat(PrivateDovecot.log()).as("Dovecot's log").contains("user=<" + MAILBOX + ">")
                .doesNotContain("Authentication failed");
    }

    @Test
    @Order(2)
    void aRevokedTokenCostsOneRenewalAndTheMailLeaves() throws Exception {
        // First the queue is made to hold a young token: tokens of 60 s from new keys (whatever it held is refused
        // or renewed), and a new login at a restarted Dovecot.
        revokeAndSend("takes a long-lived token", 60);
        LoginJson before = login();
        assertThat(Instant.parse(before.tokenExpiresAt())).as("a token in hand, young")
                .isAfter(Instant.now().plusSeconds(30));

        MailView sent = revokeAndSend("after revocation", 60);

        assertThat(sent.getAttempts()).as("attempts").hasSize(1);
        LoginJson after = login();
        assertThat(after.refusals() - before.refusals()).as("tokens refused").isEqualTo(1);
        assertThat(after.renewals() - before.renewals()).as("renewals").isEqualTo(1);
        assertThat(PrivateDovecot.log()).as("the revoked token was refused, then a new one taken")
                .contains("Introspection failed: Provided token is not valid").contains("user=<" + MAILBOX + ">");
    }

    /**
     * Revokes every token issued so far (the authorization server starts again with new keys), makes the queue log in
     * again (Dovecot starts again: its connections close), and sends one mail.
     *
     * @return the mail, sent
     */
    private static MailView revokeAndSend(String subject, int lifetime) throws Exception {
        long t0 = System.nanoTime();
        AUTHORIZATION.restart(lifetime);
        long t1 = System.nanoTime();
        PrivateDovecot.stop();
        long t2 = System.nanoTime();
        PrivateDovecot.start(AuthorizationServer.introspection(), AuthorizationServer.MAILBOX_CLAIM);
        long t3 = System.nanoTime();
        EnqueueReceipt receipt = QueueApi.enqueue(mail("revoked@o365.example", subject));
        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        System.out.printf("revokeAndSend: auth %d ms, dovecot stop %d ms, start %d ms, sent %d ms%n", (t1 - t0) / 1_000_000,
                (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, (System.nanoTime() - t3) / 1_000_000);
        return sent;
    }

    @Test
    @Order(3)
    void withoutATokenTheMailWaitsWithItsAttemptsUntouchedThenLeavesWhenTheServerIsBack() throws Exception {
        AUTHORIZATION.stop();
        PrivateDovecot.stop();
        PrivateDovecot.start(AuthorizationServer.introspection(), AuthorizationServer.MAILBOX_CLAIM);
        // the token in hand is refused (introspection cannot be done), and no new one can be had
        EnqueueReceipt receipt = QueueApi.enqueue(mail("waits@o365.example", "waits for a token"));
        int attempts = QueueApi.find(receipt.getId()).getAttemptsRemaining();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500))
                .until(() -> login().lastError() != null);

        LoginJson login = login();
        assertThat(login.lastError()).contains("client-credentials", "/queue/token", "could not be reached");
        String ready = Observability.ready().body();
        assertThat(ready).as("readiness").contains("oauth2 client-credentials").contains("could not be reached");
        Thread.sleep(3_000); // claimers come and go meanwhile
        MailView waiting = QueueApi.find(receipt.getId());
        assertThat(waiting.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(waiting.getAttemptsRemaining()).as("attempts remaining").isEqualTo(attempts);

        AUTHORIZATION.start();
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(60));
        assertThat(login().lastError()).as("the error once a token came").isNull();
    }

    @Test
    @Order(4)
    void noTokenAndNoSecretReachTheServersLog() throws Exception {
        String log = String.join("\n", QueueState.logSince(logMark));
        assertThat(log).as("the server's log while this class ran").contains("o365");
        assertThat(JWT.matcher(log).find()).as("a JWT in messages.log").isFalse();
        assertThat(log).doesNotContain("it-client-secret-of-the-test-servers");
        Path logs = QueueState.LOG.getParent();
        try (Stream<Path> files = Files.list(logs)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String text = Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
                assertThat(JWT.matcher(text).find()).as("a JWT in %s", file).isFalse();
            }
        }
    }

    private static MailRequest mail(String to, String subject) {
        return new MailRequest().account("o365").from("news@sender.example").to(to).subject(subject)
                .text("sent with an OAuth2 login");
    }

    /** Account o365's login as {@code GET /api/admin/dispatch} shows it. */
    record LoginJson(long renewals, long refusals, String tokenExpiresAt, String lastError) {
    }

    @SuppressWarnings("unchecked")
    private static LoginJson login() {
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/dispatch");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<Map<String, Object>> accounts = (List<Map<String, Object>>) QueueApi.jsonObject(response.body()).get("accounts");
        Map<String, Object> login = (Map<String, Object>) accounts.stream().filter(a -> "o365".equals(a.get("name")))
                .findFirst().orElseThrow().get("login");
        assertThat(login.get("kind")).isEqualTo("oauth2");
        return new LoginJson(((Number) login.get("renewals")).longValue(), ((Number) login.get("refusals")).longValue(),
                (String) login.get("tokenExpiresAt"), (String) login.get("lastError"));
    }
}
