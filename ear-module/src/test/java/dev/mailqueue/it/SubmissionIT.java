package dev.mailqueue.it;

import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * SMTP submission into the queue (RFC 6409) with real clients: Angus Mail's SMTP transport with STARTTLS and AUTH
 * submits a message, which the queue answers 250 with its id and Message-ID once queued and then delivers to the
 * real SMTP server; a wrong password, AUTH before STARTTLS, a sender before AUTH, unknown commands, a message over
 * the size limit, a sender the user may not use, a fourth message in one connection and a client that disconnects
 * in the middle of DATA are each refused with their SMTP reply, and none of them queues anything.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class SubmissionIT extends QueueServerIT {

    static final int PORT = Integer.getInteger("it.submission.port", 3137);

    private static final Pattern QUEUED = Pattern.compile("250 2\\.0\\.0 queued as (\\d+) (<[^>]+>)");

    @Test
    void aMessageSubmittedWithStartTlsAndAuthIsAnswered250OnceQueuedAndArrives() throws Exception {
        String to = "submitted-" + Long.toString(System.nanoTime(), 36) + "@submission.example";
        Session session = Session.getInstance(client());
        MimeMessage message = new MimeMessage(session);
        message.setFrom("Shop <orders@shop.example>");
        message.setRecipients(Message.RecipientType.TO, to);
        message.setSubject("Submitted over SMTP");
        message.setText("Hello from an SMTP client.");
        message.saveChanges();

        String reply;
        try (Transport transport = session.getTransport("smtp")) {
            transport.connect("localhost", PORT, TestUser.SENDER.name(), TestUser.SENDER.password());
            transport.sendMessage(message, message.getAllRecipients());
            reply = lastReply(transport);
        }

        Matcher queued = QUEUED.matcher(reply);
        assertThat(queued.find()).as(reply).isTrue();
        assertThat(queued.group(2)).as("the message's own Message-ID").isEqualTo(message.getMessageID());
        QueueApi.awaitStatus(Long.parseLong(queued.group(1)), dev.mailqueue.api.MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> !SMTP.inbox(to).isEmpty());
        MimeMessage arrived = SMTP.inbox(to).get(0);
        assertThat(arrived.getMessageID()).isEqualTo(message.getMessageID());
        assertThat(arrived.getHeader("Received")).as("the submission server's trace field")
                .anySatisfy(r -> assertThat(r).contains("mailqueue"));
    }

    /**
     * A real MTA submits through the queue: a private Postfix whose relay host is the listener takes a message
     * from a client without login and relays it there with STARTTLS and SASL PLAIN as the test sender, as a
     * smarthost set-up does; the queue sends it on to the SMTP server.
     */
    @Test
    void aPostfixWithTheQueueAsItsRelayHostLogsInOverStartTlsAndItsMailArrives() throws Exception {
        Path dir = Path.of(System.getProperty("it.postfix.relay.dir", "/tmp/mailqueue-it-postfix-relay"));
        int port = Integer.getInteger("it.postfix.relay.port", 3138);
        PrivatePostfix.startSubmissionRelay(dir, port, PORT, TestUser.SENDER);
        try {
            String to = "relayed-" + Long.toString(System.nanoTime(), 36) + "@submission.example";
            Properties properties = new Properties();
            properties.setProperty("mail.smtp.host", "127.0.0.1");
            properties.setProperty("mail.smtp.port", Integer.toString(port));
            MimeMessage message = new MimeMessage(Session.getInstance(properties));
            message.setFrom("orders@shop.example");
            message.setRecipients(Message.RecipientType.TO, to);
            message.setSubject("Relayed by Postfix");
            message.setText("Through a smarthost.");
            message.saveChanges();

            Transport.send(message);

            await().atMost(Duration.ofSeconds(60)).until(() -> !SMTP.inbox(to).isEmpty());
            MimeMessage arrived = SMTP.inbox(to).get(0);
            assertThat(arrived.getMessageID()).isEqualTo(message.getMessageID());
            assertThat(arrived.getHeader("Received")).as("Postfix's and the queue's trace fields")
                    .anySatisfy(r -> assertThat(r).contains("mta.test"))
                    .anySatisfy(r -> assertThat(r).contains("mailqueue"));
        } finally {
            PrivatePostfix.stop(dir);
        }
    }

    @Test
    void aWrongPasswordIsRefused() {
        Session session = Session.getInstance(client());

        assertThatThrownBy(() -> {
            try (Transport transport = session.getTransport("smtp")) {
                transport.connect("localhost", PORT, TestUser.SENDER.name(), "wrong");
            }
        }).isInstanceOf(AuthenticationFailedException.class);
    }

    @Test
    void nothingButEhloAndStartTlsBeforeTlsAndNothingButAuthBeforeLogin() throws Exception {
        long stored = QueueApi.storedMails();
        try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
            assertThat(smtp.greeting()).startsWith("220");
            String ehlo = smtp.send("EHLO tests.example");
            assertThat(ehlo).contains("STARTTLS").doesNotContain("AUTH");
            assertThat(smtp.send("AUTH PLAIN AHNlbmRlcgBpdC1zZW5kZXItcHc=")).startsWith("530");
            assertThat(smtp.send("MAIL FROM:<orders@shop.example>")).startsWith("530");

            String secure = smtp.startTls();
            assertThat(secure).contains("AUTH").contains("PLAIN").contains("LOGIN").contains("SIZE 1048576")
                    .contains("8BITMIME").contains("SMTPUTF8");
            assertThat(smtp.send("MAIL FROM:<orders@shop.example>")).as("no sending before AUTH").startsWith("530");
            assertThat(smtp.send("FROBNICATE")).startsWith("500");
            assertThat(smtp.login(TestUser.SENDER)).startsWith("235");
            assertThat(smtp.send("MAIL FROM:<orders@shop.example> SIZE=2000000")).as("declared too large")
                    .startsWith("552");
        }
        assertThat(QueueApi.storedMails()).isEqualTo(stored);
    }

    @Test
    void refusedMessagesAndACutOffDataQueueNothing() throws Exception {
        long stored = QueueApi.storedMails();
        try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
            smtp.startTls();
            assertThat(smtp.login(TestUser.SENDER)).startsWith("235");

            assertThat(transaction(smtp, "intruder@other.example", "x@submission.example",
                    "From: intruder@other.example\r\nTo: x@submission.example\r\nSubject: no\r\n\r\nno\r\n"))
                    .as("a sender the user may not use").startsWith("550 5.7.1");
            assertThat(transaction(smtp, "orders@shop.example", "x@submission.example",
                    "From: orders@shop.example\r\nTo: x@submission.example\r\nX-Big: y\r\n\r\n" + "z".repeat(80) + "\r\n"
                            + ("z".repeat(998) + "\r\n").repeat(1100)))
                    .as("over max-message-bytes").startsWith("552 5.3.4");
            assertThat(smtp.send("RCPT TO:<\"quoted\"@submission.example>")).as("RCPT before MAIL").startsWith("503");
            assertThat(transaction(smtp, "orders@shop.example", "x@submission.example",
                    "From: orders@shop.example\r\nTo: x@submission.example\r\nMessage-ID: <nope>\r\n\r\nx\r\n"))
                    .as("a message the queue cannot send as it is").startsWith("554 5.6.0").contains("Message-ID");
            assertThat(smtp.send("MAIL FROM:<orders@shop.example>")).as("a fourth message in one connection")
                    .startsWith("451 4.7.0");
        }
        try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
            smtp.startTls();
            smtp.login(TestUser.SENDER);
            assertThat(smtp.send("MAIL FROM:<orders@shop.example>")).startsWith("250");
            assertThat(smtp.send("RCPT TO:<cut@submission.example>")).startsWith("250");
            assertThat(smtp.send("DATA")).startsWith("354");
            smtp.writeRaw("From: orders@shop.example\r\nTo: cut@submission.example\r\n\r\nhalf a messa"
                    .getBytes(StandardCharsets.US_ASCII));
        }
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                .until(() -> QueueApi.storedMails() == stored);
        assertThat(SMTP.inbox("cut@submission.example")).isEmpty();
    }

    /**
     * The promise "send again after a lost reply and get the same mail": the client sends a whole message and
     * closes the connection without reading the reply to its final dot, after the queue committed it; it sends
     * the same envelope and bytes again on a new connection and is answered 250 with the first mail, and exactly
     * one mail is queued and delivered. The message has no Message-ID of its own (the queue adds one), so a key
     * that differed between the two connections would queue it twice rather than refuse the second copy.
     */
    @Test
    void theSameMessageSentAgainAfterALostReplyIsQueuedOnce() throws Exception {
        String to = "resent-" + Long.toString(System.nanoTime(), 36) + "@submission.example";
        String message = "From: orders@shop.example\r\nTo: " + to + "\r\nSubject: sent twice\r\n\r\nonce, please\r\n";
        long stored = QueueApi.storedMails();
        try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
            smtp.startTls();
            assertThat(smtp.login(TestUser.SENDER)).startsWith("235");
            assertThat(smtp.send("MAIL FROM:<orders@shop.example>")).startsWith("250");
            assertThat(smtp.send("RCPT TO:<" + to + ">")).startsWith("250");
            assertThat(smtp.send("DATA")).startsWith("354");
            smtp.writeRaw((message + ".\r\n").getBytes(StandardCharsets.US_ASCII));
        } // closed before the reply to the final dot was read
        await().atMost(Duration.ofSeconds(30)).until(() -> QueueApi.storedMails() == stored + 1);

        String again;
        try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
            smtp.startTls();
            assertThat(smtp.login(TestUser.SENDER)).startsWith("235");
            again = transaction(smtp, "orders@shop.example", to, message);
        }

        assertThat(again).as("the resend's reply").startsWith("250 2.0.0 queued as ").endsWith("(already)");
        assertThat(QueueApi.storedMails()).as("mails queued by both connections").isEqualTo(stored + 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> !SMTP.inbox(to).isEmpty());
        await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
        assertThat(SMTP.inbox(to)).as("copies delivered").hasSize(1);
    }

    /**
     * Guessing passwords on one connection: {@code max-auth-failures} (3 on the test server) wrong passwords, and
     * the third is followed by 421 4.7.0 and the end of the connection; the first two leave it open (a NOOP after
     * them is answered).
     */
    @Test
    void theThirdFailedLoginOnAConnectionClosesItWith421() throws Exception {
        awaitNoLockout();
        try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
            smtp.startTls();
            assertThat(smtp.login(TestUser.SENDER.name(), "wrong-1")).startsWith("535");
            assertThat(smtp.send("NOOP")).as("open after one failure").startsWith("250");
            assertThat(smtp.login(TestUser.SENDER.name(), "wrong-2")).startsWith("535");
            assertThat(smtp.send("NOOP")).as("open after two failures").startsWith("250");
            assertThat(smtp.login(TestUser.SENDER.name(), "wrong-3")).startsWith("535");
            assertThat(smtp.reply()).as("after the third").startsWith("421 4.7.0");
            assertThatThrownBy(() -> smtp.send("NOOP")).as("the connection is closed").isInstanceOf(IOException.class);
        }
    }

    /**
     * Guessing from one address over several connections: after {@code auth-failures-per-address} (6 on the test
     * server) failed logins from an address, even the right password is refused there (454 4.7.0, after a delay)
     * until the lockout (3 s on the test server) has passed; then it is taken again.
     */
    @Test
    void anAddressWithTooManyFailedLoginsIsLockedOutForAWhile() throws Exception {
        awaitNoLockout();
        String refusal = null;
        for (int connection = 0; connection < 3 && refusal == null; connection++) {
            try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
                smtp.startTls();
                for (int attempt = 0; attempt < 2; attempt++) {
                    String reply = smtp.login(TestUser.SENDER.name(), "guess-" + connection + "-" + attempt);
                    if (!reply.startsWith("535")) {
                        refusal = reply;
                        break;
                    }
                }
            }
        }
        long start = System.nanoTime();
        String locked;
        try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
            smtp.startTls();
            locked = smtp.login(TestUser.SENDER);
        }
        assertThat(locked).as("the right password during the lockout").startsWith("454 4.7.0");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("answered after the delay")
                .isGreaterThanOrEqualTo(Duration.ofMillis(400));
        awaitNoLockout();
    }

    /**
     * Squatting: a client that never logs in is closed with 421 4.7.0 at the deadline before AUTH (3 s on the test
     * server) although it keeps sending commands well inside the idle timeout; a client that logged in at the same
     * time is still served after it.
     */
    @Test
    void aConnectionThatDoesNotLogInIsClosedAtTheDeadlineEvenWhileItTalks() throws Exception {
        long start = System.nanoTime(); // the deadline counts from the connection
        try (SmtpDialog idle = new SmtpDialog("localhost", PORT); SmtpDialog served = new SmtpDialog("localhost", PORT)) {
            idle.startTls();
            served.startTls();
            assertThat(served.login(TestUser.SENDER)).startsWith("235");
            String last = "";
            while (Duration.ofNanos(System.nanoTime() - start).toMillis() < 4_500 && !last.startsWith("421")) {
                Thread.sleep(300);
                try {
                    last = idle.send("NOOP");
                } catch (IOException closed) {
                    last = "closed: " + closed.getMessage();
                }
                assertThat(served.send("NOOP")).as("the logged-in client").startsWith("250");
            }
            Duration closedAfter = Duration.ofNanos(System.nanoTime() - start);
            assertThat(last).as("the client that never logged in").startsWith("421 4.7.0");
            assertThat(closedAfter).isGreaterThan(Duration.ofMillis(2_500)).isLessThan(Duration.ofMillis(4_500));
            assertThatThrownBy(() -> idle.send("NOOP")).isInstanceOf(IOException.class);
            assertThat(served.send("NOOP")).as("the logged-in client after the deadline").startsWith("250");
        }
    }

    /**
     * A logged-in connection that keeps talking still ends at the session deadline (6 s on the test servers) with
     * 421 4.4.2, so no client holds a slot for ever.
     */
    @Test
    void aLoggedInConnectionEndsAtTheSessionDeadline() throws Exception {
        awaitNoLockout();
        long start = System.nanoTime();
        try (SmtpDialog talker = new SmtpDialog("localhost", PORT)) {
            talker.startTls();
            assertThat(talker.login(TestUser.SENDER)).startsWith("235");
            String last = "";
            while (Duration.ofNanos(System.nanoTime() - start).toMillis() < 9_000 && !last.startsWith("421")) {
                Thread.sleep(500);
                try {
                    last = talker.send("NOOP");
                } catch (IOException closed) {
                    last = "closed: " + closed.getMessage();
                }
            }
            Duration closedAfter = Duration.ofNanos(System.nanoTime() - start);
            assertThat(last).startsWith("421 4.4.2");
            assertThat(closedAfter).isGreaterThan(Duration.ofMillis(5_500)).isLessThan(Duration.ofMillis(9_000));
            assertThatThrownBy(() -> talker.send("NOOP")).isInstanceOf(IOException.class);
        }
    }

    /**
     * Twenty connections fill the test server's listener (from two client addresses, ten each, the limit per
     * address): the next client is answered 421 4.3.2 and closed, and once they close a client is served again.
     */
    @Test
    void aFullListenerAnswers421AndServesAgainOnceConnectionsClose() throws Exception {
        List<SmtpDialog> held = new java.util.ArrayList<>();
        try {
            for (String local : List.of("127.0.0.2", "127.0.0.3")) {
                for (int i = 0; i < 10; i++) {
                    SmtpDialog dialog = new SmtpDialog("127.0.0.1", PORT, java.net.InetAddress.getByName(local));
                    held.add(dialog);
                    assertThat(dialog.greeting()).as("connection %d from %s", i + 1, local).startsWith("220");
                }
            }
            try (SmtpDialog refused = new SmtpDialog("127.0.0.1", PORT, java.net.InetAddress.getByName("127.0.0.4"))) {
                assertThat(refused.greeting()).startsWith("421 4.3.2");
                assertThatThrownBy(() -> refused.send("EHLO tests.example")).isInstanceOf(IOException.class);
            }
        } finally {
            for (SmtpDialog dialog : held) {
                dialog.close();
            }
        }
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            try (SmtpDialog again = new SmtpDialog("127.0.0.1", PORT, java.net.InetAddress.getByName("127.0.0.4"))) {
                return again.greeting().startsWith("220");
            }
        });
    }

    /** Waits until the test sender's login is taken from this address again (no lockout from an earlier test). */
    static void awaitNoLockout() {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(500)).until(() -> {
            try (SmtpDialog smtp = new SmtpDialog("localhost", PORT)) {
                smtp.startTls();
                return smtp.login(TestUser.SENDER).startsWith("235");
            }
        });
    }

    /** @return the reply to DATA's end, or to the first command refused before it */
    private static String transaction(SmtpDialog smtp, String from, String to, String message) throws Exception {
        String mail = smtp.send("MAIL FROM:<" + from + ">");
        if (!mail.startsWith("250")) {
            return mail;
        }
        String rcpt = smtp.send("RCPT TO:<" + to + ">");
        if (!rcpt.startsWith("250")) {
            smtp.send("RSET");
            return rcpt;
        }
        String data = smtp.send("DATA");
        if (!data.startsWith("354")) {
            return data;
        }
        smtp.writeRaw(message.getBytes(StandardCharsets.US_ASCII));
        return smtp.send(".");
    }

    /** @return Angus Mail's SMTP client settings: STARTTLS required, any certificate trusted, AUTH */
    static Properties client() {
        Properties properties = new Properties();
        properties.setProperty("mail.smtp.auth", "true");
        properties.setProperty("mail.smtp.starttls.enable", "true");
        properties.setProperty("mail.smtp.starttls.required", "true");
        properties.setProperty("mail.smtp.ssl.trust", "*");
        properties.setProperty("mail.smtp.connectiontimeout", "10000");
        properties.setProperty("mail.smtp.timeout", "30000");
        return properties;
    }

    /** @return the server's last reply, as Angus Mail's SMTP transport keeps it */
    private static String lastReply(Transport transport) throws Exception {
        return (String) transport.getClass().getMethod("getLastServerResponse").invoke(transport);
    }
}
