package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.RecipientView;
import jakarta.mail.Address;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Bounces that come back after a server accepted the mail, end to end against real parts: the queue
 * sends to GreenMail (the relay, which answers 250); the mail then travels on to a real Postfix
 * (src/test/postfix, started here), which has no such mailbox and writes a real Delivery Status
 * Notification; the test puts that report into the bounce mailbox (GreenMail, read over IMAP by the
 * test server's {@code bounce-intake} job every second), as a relay would deliver it there. The recipient becomes BOUNCED with Postfix's status, the
 * address is suppressed, a report read twice counts once, and the next mail leaves the address out. With VERP
 * the report goes to the token address and the token names the mail and the recipient; a recipient who forges a
 * report about a co-recipient changes nothing. What strangers put in the mailbox costs a bounded amount and never
 * stops the intake: a report whose every field is longer than its column, a message of 200,000 MIME parts, and a
 * report listing hundreds of invented recipients are dealt with, and a real report behind them still suppresses
 * its address. Needs Debian's {@code postfix} and root (as {@code .ci/run} has); skipped without them.
 */
class BounceIntakeIT extends QueueServerIT {

    /** The envelope sender of the mail the test relays to Postfix, whose reports Postfix keeps. */
    private static final String HELD = "held@mailqueue.test";
    private static final String GONE = "nobody@bounce.test";
    private static final String FINE = "pat@fine.example";

    @BeforeAll
    static void startPostfix() throws Exception {
        PrivatePostfix.start();
    }

    @AfterAll
    static void stopPostfix() throws Exception {
        PrivatePostfix.stop();
    }

    @Test
    void aRealPostfixBounceMarksTheRecipientSuppressesTheAddressOnceAndTheNextMailLeavesItOut() throws Exception {
        EnqueueReceipt first = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(GONE, FINE)
                .subject("monthly news").text("Hello"));
        QueueApi.awaitStatus(first.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        // The relay accepted it; now it reaches the final server, which bounces it to the envelope sender.
        MimeMessage relayed = SMTP.inbox(GONE).get(0);
        MimeMessage report = bounceThroughPostfix(relayed, GONE);
        assertThat(report.getContentType()).contains("multipart/report").contains("delivery-status");

        // The report arrives in the bounce mailbox twice (a relay that retried): it counts once.
        SMTP.deliver(SmtpCatcher.BOUNCES, copy(report));
        SMTP.deliver(SmtpCatcher.BOUNCES, copy(report));
        SMTP.deliver(SmtpCatcher.BOUNCES, autoReply());
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> recipient(first.getId(), GONE) != null && "BOUNCED".equals(recipient(first.getId(), GONE).getStatus()));
        await().atMost(Duration.ofSeconds(15)).until(() -> SMTP.inbox(SmtpCatcher.BOUNCES).isEmpty());

        RecipientView bounced = recipient(first.getId(), GONE);
        assertThat(bounced.getEnhancedStatus()).isEqualTo("5.1.1");
        assertThat(bounced.getReplyText()).contains("mailbox unknown");
        MailView mail = QueueApi.find(first.getId());
        assertThat(mail.getStatus()).as("it was sent; one recipient bounced later").isEqualTo(MailStatus.SENT);
        assertThat(recipient(first.getId(), FINE)).as("the recipient nobody reported on").isNull();

        HttpResponse<String> log = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + first.getId() + "/attempts");
        List<AttemptView> attempts = QueueApi.attempts(log.body());
        assertThat(attempts).filteredOn(a -> "BOUNCED".equals(a.getOutcome())).as("one report, read twice")
                .singleElement().satisfies(a -> assertThat(a.getEnhancedStatus()).isEqualTo("5.1.1"));

        HttpResponse<String> suppression = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + GONE);
        assertThat(suppression.statusCode()).as(suppression.body()).isEqualTo(200);
        assertThat(QueueApi.jsonObject(suppression.body())).containsEntry("reason", "HARD_BOUNCE")
                .containsEntry("address", GONE);
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + FINE).statusCode()).isEqualTo(404);
        Map<String, Object> stats = QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/statistics").body());
        assertThat(((Number) stats.get("bouncedLast24h")).longValue()).as("the statistics count the bounce").isGreaterThanOrEqualTo(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> byReason = (Map<String, Object>) stats.get("suppressionsByReason");
        assertThat(((Number) byReason.get("HARD_BOUNCE")).longValue()).isGreaterThanOrEqualTo(1);
        HttpResponse<String> bouncedSearch = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails?bounced=true&id=" + first.getId());
        assertThat(bouncedSearch.body()).contains("\"id\":" + first.getId());

        // The next mail to both leaves the bounced address out; a mail to it alone is never sent.
        EnqueueReceipt next = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(GONE, FINE)
                .subject("next news").text("Hello again"));
        assertThat(next.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(next.getSuppressed()).containsExactly(GONE);
        EnqueueReceipt alone = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(GONE)
                .subject("only to the bounced address").text("Hello?"));
        assertThat(alone.getStatus()).isEqualTo(MailStatus.SUPPRESSED);
        QueueApi.awaitStatus(next.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(SMTP.inbox(FINE)).hasSize(2);
        assertThat(SMTP.inbox(GONE)).as("only the first mail reached it").hasSize(1);
        assertThat(recipient(next.getId(), GONE).getStatus()).isEqualTo("SUPPRESSED");
        assertThat(QueueApi.find(alone.getId()).getStatus()).isEqualTo(MailStatus.SUPPRESSED);

        // An operator lifts the suppression: mail goes to the address again.
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/suppressions/" + GONE).statusCode()).isEqualTo(204);
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/suppressions/" + GONE).statusCode()).isEqualTo(404);
        assertThat(QueueApi.enqueue(new MailRequest().from("news@sender.example").to(GONE).subject("after lifting")
                .text("Hello")).getSuppressed()).isEmpty();
    }

    /**
     * VERP: mail of account {@code verp} (sender domain verp.example, bounce address bounces@mailqueue.test)
     * leaves with MAIL FROM {@code bounces+<token>@mailqueue.test}; Postfix sends its report there, and the
     * report names its mail by that token alone: the test replaces the Message-ID in the returned message
     * with one the queue never issued. A copy whose token was altered names no mail.
     */
    @Test
    void withVerpPostfixReportsToTheTokenAddressAndTheTokenAloneNamesTheMail() throws Exception {
        String gone = "verp-" + System.nanoTime() + "@bounce.test";
        EnqueueReceipt sent = QueueApi.enqueue(new MailRequest().from("news@verp.example").to(gone)
                .subject("news with VERP").text("Hello"));
        QueueApi.awaitStatus(sent.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        MimeMessage relayed = SMTP.inbox(gone).get(0);
        String returnPath = relayed.getHeader("Return-Path", null);
        assertThat(returnPath).as("the MAIL FROM GreenMail saw: mail and recipient 0")
                .matches("<bounces\\+[0-9a-z]+\\.0-[0-9a-f]{20}@mailqueue\\.test>");
        assertThat(relayed.getFrom()).extracting(a -> ((InternetAddress) a).getAddress()).as("the From header stays the author's")
                .containsExactly("news@verp.example");
        String verp = returnPath.substring(1, returnPath.length() - 1);
        String token = verp.substring(verp.indexOf('+') + 1, verp.indexOf('@'));

        String raw = rawBounceThroughPostfix(relayed, gone, verp);
        int split = raw.indexOf("\n\n");
        String head = raw.substring(0, split);
        String body = raw.substring(split);
        assertThat(head).as("Postfix addressed its report to the VERP address").containsIgnoringCase("To: " + verp)
                .containsIgnoringCase("Delivered-To: " + verp);
        assertThat(body).as("the returned message").containsIgnoringCase("Message-ID: " + relayed.getMessageID());
        String noKnownId = body.replaceAll("(?im)^Message-ID:.*$", "Message-ID: <never-issued-" + System.nanoTime() + "@verp.example>");

        char last = token.charAt(token.length() - 1);
        String altered = token.substring(0, token.length() - 1) + (last == '0' ? '1' : '0');
        String forgedHead = head.replace(token, altered)
                .replaceAll("(?im)^Message-ID:.*$", "Message-ID: <forged-" + System.nanoTime() + "@mta.test>");
        // the returned message's Return-Path carries the token too (a complaint's feedback loop may name it there only)
        SMTP.deliver(SmtpCatcher.BOUNCES, mime(forgedHead + noKnownId.replace(token, altered)));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> SMTP.inbox(SmtpCatcher.BOUNCES).isEmpty());
        assertThat(recipient(sent.getId(), gone)).as("an altered token names no mail").isNull();

        SMTP.deliver(SmtpCatcher.BOUNCES, mime(head + noKnownId));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> recipient(sent.getId(), gone) != null && "BOUNCED".equals(recipient(sent.getId(), gone).getStatus()));
        assertThat(recipient(sent.getId(), gone).getEnhancedStatus()).isEqualTo("5.1.1");
        HttpResponse<String> log = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + sent.getId() + "/attempts");
        assertThat(QueueApi.attempts(log.body())).filteredOn(a -> "BOUNCED".equals(a.getOutcome())).singleElement();
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + gone).statusCode()).isEqualTo(200);
    }

    /**
     * Issue 32, point 1 and 3: a report whose fields overflow their columns stopped the intake for good (the
     * insert failed, the step failed, the next run began at the same message). Behind such a report, a message of
     * 2,000 empty parts (past mailqueue.bounce.max-parts: refused unparsed) and a report of 500 invented recipients
     * larger than mailqueue.bounce.max-message-bytes (64 KiB on the test servers: read from its start), a real
     * Postfix report must still suppress its address, the inbox must empty within the time of a few runs, each
     * limit's metric counts its hit, and the mail named by the hostile reports gets at most one attempt-log row per
     * recipient it had. (MimeStructureTest refuses the review's 200,000 parts; GreenMail, in this JVM, would spend
     * half a minute storing them.)
     */
    @Test
    void hostileReportsCostABoundedAmountAndARealReportBehindThemStillSuppresses() throws Exception {
        String target = "target-" + System.nanoTime() + "@fine.example";
        EnqueueReceipt named = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(target)
                .subject("named by hostile reports").text("Hello"));
        String gone = "gone-" + System.nanoTime() + "@bounce.test";
        EnqueueReceipt real = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(gone)
                .subject("really bounces").text("Hello"));
        QueueApi.awaitStatus(named.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        QueueApi.awaitStatus(real.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        String report = rawBounceThroughPostfix(SMTP.inbox(gone).get(0), gone, HELD);

        String metrics = Observability.metrics().body();
        double refusedBefore = counter(metrics, "mailqueue_bounce_reports_refused_total");
        double truncatedBefore = counter(metrics, "mailqueue_bounce_reports_truncated_total");
        String overlong = "<" + "k".repeat(300) + "@mta.test>";
        StringBuilder invented = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            invented.append("\r\nFinal-Recipient: rfc822; invented-").append(i).append("@fine.example\r\nAction: failed\r\nStatus: 5.1.1\r\n");
        }
        SMTP.deliver(SmtpCatcher.BOUNCES, mime(dsn(overlong, named.getMessageId(),
                "\r\nFinal-Recipient: rfc822; " + target + "\r\nOriginal-Recipient: rfc822; " + "o".repeat(300) + "@fine.example"
                        + "\r\nAction: failed\r\nStatus: 5.1.1.1.1.1.1.1.1.1 (longer than the column)"
                        + "\r\nDiagnostic-Code: smtp; 550 " + "d".repeat(5_000) + "\r\n")));
        SMTP.deliver(SmtpCatcher.BOUNCES, mime(new String(manyParts(2_000), StandardCharsets.US_ASCII)));
        SMTP.deliver(SmtpCatcher.BOUNCES, mime(dsn("<invented-" + System.nanoTime() + "@mta.test>", named.getMessageId(),
                invented.toString()).replace("\r\n--r--\r\n", "\r\n" + "a returned body line\r\n".repeat(10_000) + "--r--\r\n")));
        SMTP.deliver(SmtpCatcher.BOUNCES, mime(report));

        await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(250))
                .until(() -> SMTP.inbox(SmtpCatcher.BOUNCES).isEmpty());
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250))
                .until(() -> QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + gone).statusCode() == 200);
        assertThat(recipient(real.getId(), gone).getStatus()).isEqualTo("BOUNCED");

        RecipientView hit = recipient(named.getId(), target);
        assertThat(hit).as("the overlong report was recorded, its bad fields dropped").isNotNull();
        assertThat(hit.getStatus()).isEqualTo("BOUNCED");
        assertThat(hit.getEnhancedStatus()).as("not an RFC 3464 status").isNull();
        assertThat(hit.getReplyText()).hasSizeLessThanOrEqualTo(1000);
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + target).statusCode())
                .as("no status, so no proof of a permanent failure").isEqualTo(404);
        List<AttemptView> attempts = QueueApi.attempts(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE,
                "/api/admin/mails/" + named.getId() + "/attempts").body());
        assertThat(attempts).filteredOn(a -> "BOUNCED".equals(a.getOutcome()))
                .as("one row per recipient the mail had, not one per invented one").hasSizeLessThanOrEqualTo(2);
        assertThat(QueueApi.find(named.getId()).getRecipients()).hasSize(1);
        String after = Observability.metrics().body();
        assertThat(counter(after, "mailqueue_bounce_reports_refused_total")).as("the message of 2,000 parts")
                .isGreaterThan(refusedBefore);
        assertThat(counter(after, "mailqueue_bounce_reports_truncated_total")).as("the report over 64 KiB")
                .isGreaterThan(truncatedBefore);
    }

    /** @return a counter's value in Prometheus text, 0 before its first count (it is registered then) */
    private static double counter(String text, String name) {
        return text.lines().anyMatch(line -> line.startsWith(name)) ? Observability.value(text, name + "\\{[^}]*\\}") : 0;
    }

    /**
     * Issue 32, point 2: with per-recipient VERP each recipient's copy has a token of its own. A recipient who
     * forges a DSN or a complaint about a co-recipient (with its own token, with the Message-ID alone, or with a
     * returned message that names the other) changes nothing for the co-recipient.
     */
    @Test
    void aRecipientWhoForgesAReportAboutACoRecipientChangesNothingForThem() throws Exception {
        String forger = "forger-" + System.nanoTime() + "@fine.example";
        String victim = "victim-" + System.nanoTime() + "@fine.example";
        EnqueueReceipt sent = QueueApi.enqueue(new MailRequest().from("news@verp.example").to(forger).cc(victim)
                .subject("news to two").text("Hello"));
        QueueApi.awaitStatus(sent.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        String forgersPath = SMTP.inbox(forger).get(0).getHeader("Return-Path", null);
        String victimsPath = SMTP.inbox(victim).get(0).getHeader("Return-Path", null);
        assertThat(forgersPath).as("one transaction per recipient, each with its own token").isNotEqualTo(victimsPath)
                .matches("<bounces\\+[0-9a-z]+\\.0-[0-9a-f]{20}@mailqueue\\.test>");
        assertThat(victimsPath).matches("<bounces\\+[0-9a-z]+\\.1-[0-9a-f]{20}@mailqueue\\.test>");
        String forgersAddress = forgersPath.substring(1, forgersPath.length() - 1);
        String aboutTheVictim = "\r\nFinal-Recipient: rfc822; " + victim + "\r\nAction: failed\r\nStatus: 5.1.1\r\n";

        SMTP.deliver(SmtpCatcher.BOUNCES, mime("Delivered-To: " + forgersAddress + "\r\n"
                + dsn("<forged-1-" + System.nanoTime() + "@mta.test>", sent.getMessageId(), aboutTheVictim)));
        SMTP.deliver(SmtpCatcher.BOUNCES, mime(dsn("<forged-2-" + System.nanoTime() + "@mta.test>", sent.getMessageId(),
                aboutTheVictim)));
        SMTP.deliver(SmtpCatcher.BOUNCES, mime(new String(dev.mailqueue.it.BounceIntakeIT.arf(victim, sent.getMessageId()),
                StandardCharsets.US_ASCII)));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> SMTP.inbox(SmtpCatcher.BOUNCES).isEmpty());

        assertThat(recipient(sent.getId(), victim).getStatus()).as("the co-recipient, as its transaction left it")
                .isEqualTo("SENT");
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + victim).statusCode()).isEqualTo(404);
        assertThat(recipient(sent.getId(), forger).getStatus()).as("the forger's own token names the forger")
                .isEqualTo("BOUNCED");
    }

    private static byte[] manyParts(int parts) {
        StringBuilder raw = new StringBuilder("From: mailer-daemon@mta.test\r\nTo: bounces@mailqueue.test\r\n"
                + "Message-ID: <many-" + System.nanoTime() + "@mta.test>\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n");
        for (int i = 0; i < parts; i++) {
            raw.append("--b\r\n\r\n");
        }
        return raw.append("--b--\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** A DSN (RFC 3464) with the given per-recipient blocks about the message with the given Message-ID. */
    private static String dsn(String key, String aboutMessageId, String blocks) {
        return "From: MAILER-DAEMON@mta.test\r\nTo: bounces@mailqueue.test\r\nMessage-ID: " + key + "\r\n"
                + "Subject: Undelivered Mail\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: multipart/report; report-type=delivery-status; boundary=\"r\"\r\n\r\n"
                + "--r\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n"
                + "--r\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mta.test\r\n" + blocks
                + "\r\n--r\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: " + aboutMessageId
                + "\r\nSubject: news\r\n\r\n--r--\r\n";
    }

    /** An ARF complaint (RFC 5965) that names the recipient, about the message with the given Message-ID. */
    static byte[] arf(String originalRcptTo, String aboutMessageId) {
        return ("From: fbl@provider.example\r\nTo: bounces@mailqueue.test\r\n"
                + "Message-ID: <arf-" + System.nanoTime() + "@provider.example>\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: multipart/report; report-type=feedback-report; boundary=\"f\"\r\n\r\n"
                + "--f\r\nContent-Type: text/plain\r\n\r\nA complaint.\r\n"
                + "--f\r\nContent-Type: message/feedback-report\r\n\r\n"
                + "Feedback-Type: abuse\r\nUser-Agent: forger/1.0\r\nVersion: 1\r\nOriginal-Rcpt-To: " + originalRcptTo
                + "\r\n\r\n--f\r\nContent-Type: message/rfc822\r\n\r\nFrom: news@verp.example\r\nMessage-ID: "
                + aboutMessageId + "\r\nSubject: news\r\n\r\nbody\r\n--f--\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void anOperatorSuppressesByHandAndBadInputIsA400NamingTheField() {
        HttpResponse<String> put = QueueApi.sendAs(TestUser.ADMIN, "PUT", "/api/admin/suppressions/Manual@Example.ORG?note=asked%20us");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        assertThat(QueueApi.jsonObject(put.body())).containsEntry("address", "Manual@example.org").containsEntry("reason", "MANUAL");
        assertThat(QueueApi.enqueue(new MailRequest().from("news@sender.example").to("Manual@example.org")
                .subject("s").text("t")).getStatus()).isEqualTo(MailStatus.SUPPRESSED);

        HttpResponse<String> bad = QueueApi.sendAs(TestUser.ADMIN, "PUT", "/api/admin/suppressions/not-an-address");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("problem+json"));
        assertThat(bad.body()).contains("address");
        assertThat(QueueApi.sendAs(TestUser.SENDER, "PUT", "/api/admin/suppressions/x@example.org").statusCode())
                .as("a sender may not suppress").isEqualTo(403);
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/suppressions/Manual@example.org").statusCode()).isEqualTo(204);
    }

    /**
     * Sends the message on to Postfix as the relay would, and returns the report Postfix writes about it.
     * Postfix keeps reports to {@value #HELD} in its own Maildir (GreenMail refuses a report's null
     * envelope sender), from where the test takes it.
     */
    private static MimeMessage bounceThroughPostfix(MimeMessage message, String recipient) throws Exception {
        return new MimeMessage(Session.getInstance(new Properties()),
                new ByteArrayInputStream(rawBounceThroughPostfix(message, recipient, HELD).getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * @param envelopeSender the MAIL FROM the relay keeps, where Postfix sends its report; of mailqueue.test,
     *                       whose mail Postfix keeps in its Maildir
     * @return the report, as Postfix stored it
     */
    private static String rawBounceThroughPostfix(MimeMessage message, String recipient, String envelopeSender)
            throws Exception {
        Path maildir = PrivatePostfix.maildir();
        List<Path> before = Files.isDirectory(maildir) ? reports(maildir) : List.of();
        Properties props = new Properties();
        props.setProperty("mail.smtp.host", "127.0.0.1");
        props.setProperty("mail.smtp.port", Integer.toString(PrivatePostfix.PORT));
        props.setProperty("mail.smtp.from", envelopeSender); // the envelope sender: where the report goes
        Session session = Session.getInstance(props);
        try (Transport transport = session.getTransport("smtp")) {
            transport.connect();
            transport.sendMessage(message, new Address[]{new InternetAddress(recipient)}); // no saveChanges: Message-ID kept
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> Files.isDirectory(maildir) && reports(maildir).size() == before.size() + 1);
        Path report = reports(maildir).stream().filter(p -> !before.contains(p)).findFirst().orElseThrow();
        return Files.readString(report, StandardCharsets.UTF_8);
    }

    private static List<Path> reports(Path maildir) throws IOException {
        try (var files = Files.list(maildir)) {
            return files.toList();
        }
    }

    private static MimeMessage copy(MimeMessage message) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        message.writeTo(bytes);
        return new MimeMessage(Session.getInstance(new Properties()), new ByteArrayInputStream(bytes.toByteArray()));
    }

    private static MimeMessage mime(String raw) throws Exception {
        return new MimeMessage(Session.getInstance(new Properties()), new ByteArrayInputStream(raw.getBytes(StandardCharsets.UTF_8)));
    }

    private static MimeMessage autoReply() throws Exception {
        return new MimeMessage(Session.getInstance(new Properties()), new ByteArrayInputStream(("""
                From: Pat <pat@fine.example>\r
                To: bounces@mailqueue.test\r
                Subject: Out of office\r
                Auto-Submitted: auto-replied\r
                Message-ID: <vacation-it@fine.example>\r
                \r
                Away until Monday.\r
                """).getBytes(StandardCharsets.US_ASCII)));
    }

    private static RecipientView recipient(long mailId, String address) {
        return QueueApi.find(mailId).getRecipients().stream().filter(r -> address.equalsIgnoreCase(r.getAddress()))
                .findFirst().orElse(null);
    }
}
