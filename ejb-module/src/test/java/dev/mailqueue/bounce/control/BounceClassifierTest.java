package dev.mailqueue.bounce.control;

import dev.mailqueue.queue.control.BounceReport;
import dev.mailqueue.address.control.VerpAddress;
import dev.mailqueue.address.control.VerpToken;
import dev.mailqueue.address.control.VerpTokenTest;
import jakarta.mail.Session;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The classifier on reports a real Postfix wrote (src/test/resources/.../bounce/control/README.md says
 * how they were made), on a complaint in the ARF layout of RFC 5965, and on what must never act on a
 * recipient: auto-replies, reports cut short, garbage.
 */
class BounceClassifierTest {

    /** For MIME settings only; in the server, the bounce mailbox's session. */
    private static final Session SESSION = Session.getInstance(new Properties());

    @Test
    void postfixNonDeliveryNamesTheRecipientItsPermanentStatusAndTheOriginalMessageId() throws IOException {
        BounceReport report = BounceClassifier.classify(SESSION, fixture("postfix-failed.eml"));

        assertThat(report.kind()).as(report.summary()).isEqualTo(BounceReport.Kind.FAILED);
        assertThat(report.originalMessageId()).isEqualTo("<fixture-1@mailqueue.test>");
        assertThat(report.key()).startsWith("<").endsWith("@mta.test>");
        assertThat(report.recipients()).singleElement().satisfies(r -> {
            assertThat(r.address()).isEqualTo("nobody@bounce.test");
            assertThat(r.action()).isEqualTo(BounceReport.Action.FAILED);
            assertThat(r.status()).isEqualTo("5.1.1");
            assertThat(r.isPermanent()).isTrue();
            assertThat(r.diagnostic()).contains("mailbox unknown");
        });
    }

    @Test
    void aReportOnTwoOfThreeRecipientsNamesOnlyTheTwoThatFailed() throws IOException {
        BounceReport report = BounceClassifier.classify(SESSION, fixture("postfix-failed-two.eml"));

        assertThat(report.kind()).as(report.summary()).isEqualTo(BounceReport.Kind.FAILED);
        assertThat(report.originalMessageId()).isEqualTo("<fixture-2@mailqueue.test>");
        assertThat(report.recipients()).extracting(BounceReport.Recipient::address)
                .containsExactly("a@bounce.test", "b@bounce.test");
    }

    @Test
    void aDelayedReportIsNotAFailure() throws IOException {
        BounceReport report = BounceClassifier.classify(SESSION, fixture("postfix-delayed.eml"));

        assertThat(report.kind()).as(report.summary()).isEqualTo(BounceReport.Kind.DELAYED);
        assertThat(report.originalMessageId()).isEqualTo("<fixture-3@mailqueue.test>");
        assertThat(report.recipients()).singleElement().satisfies(r -> {
            assertThat(r.action()).isEqualTo(BounceReport.Action.DELAYED);
            assertThat(r.status()).startsWith("4.");
            assertThat(r.isPermanent()).isFalse();
        });
    }

    @Test
    void aReportWithOnlyTheReturnedHeadersStillNamesTheMail() throws IOException {
        BounceReport report = BounceClassifier.classify(SESSION, fixture("postfix-failed-headers-only.eml"));

        assertThat(report.kind()).as(report.summary()).isEqualTo(BounceReport.Kind.FAILED);
        assertThat(report.originalMessageId()).isEqualTo("<fixture-4@mailqueue.test>");
    }

    @Test
    void theSameBytesGiveTheSameKeySoAReReadIsRecognised() throws IOException {
        byte[] raw = fixture("postfix-failed.eml");
        assertThat(BounceClassifier.classify(SESSION, raw).key()).isEqualTo(BounceClassifier.classify(SESSION, raw.clone()).key());
        byte[] noMessageId = ascii(new String(raw, StandardCharsets.US_ASCII).replaceFirst("(?m)^Message-Id: .*\\r?\\n", ""));
        String key = BounceClassifier.classify(SESSION, noMessageId).key();
        assertThat(key).startsWith("sha256:").hasSize(7 + 64).isEqualTo(BounceClassifier.classify(SESSION, noMessageId).key());
    }

    @Test
    void aComplaintInTheArfLayoutNamesItsRecipient() {
        BounceReport report = BounceClassifier.classify(SESSION, ascii("""
                From: <feedback@provider.example>
                To: <bounces@example.com>
                Subject: complaint about a message
                Message-ID: <arf-1@provider.example>
                MIME-Version: 1.0
                Content-Type: multipart/report; report-type=feedback-report; boundary="part"

                --part
                Content-Type: text/plain

                A recipient reported this message as spam.
                --part
                Content-Type: message/feedback-report

                Feedback-Type: abuse
                User-Agent: ProviderFBL/1.0
                Version: 1
                Original-Mail-From: <bounces@example.com>
                Original-Rcpt-To: <Reader@Example.ORG>

                --part
                Content-Type: text/rfc822-headers

                From: news@example.com
                To: Reader@Example.ORG
                Subject: Our news
                Message-ID: <news-7@mailqueue.test>

                --part--
                """));

        assertThat(report.kind()).as(report.summary()).isEqualTo(BounceReport.Kind.COMPLAINT);
        assertThat(report.key()).isEqualTo("<arf-1@provider.example>");
        assertThat(report.originalMessageId()).isEqualTo("<news-7@mailqueue.test>");
        assertThat(report.recipients()).singleElement().satisfies(r -> {
            assertThat(r.address()).isEqualTo("Reader@Example.ORG");
            assertThat(r.action()).isEqualTo(BounceReport.Action.COMPLAINED);
            assertThat(r.diagnostic()).isEqualTo("Feedback-Type: abuse");
        });
    }

    @Test
    void anAutoReplyActsOnNobody() {
        BounceReport report = BounceClassifier.classify(SESSION, ascii("""
                From: Pat <pat@example.org>
                To: bounces@example.com
                Subject: Out of office
                Auto-Submitted: auto-replied
                Message-ID: <vacation-1@example.org>

                I am away until Monday; your message about <fixture-1@mailqueue.test> will wait.
                """));

        assertThat(report.kind()).as(report.summary()).isEqualTo(BounceReport.Kind.UNRECOGNISED);
        assertThat(report.recipients()).isEmpty();
        assertThat(report.summary()).contains("not a report");
    }

    @Test
    void aReportCutShortAnywhereNeverThrowsAndNeverInventsARecipient() throws IOException {
        byte[] raw = fixture("postfix-failed-two.eml");
        for (int length = 0; length < raw.length; length += 37) {
            BounceReport report = BounceClassifier.classify(SESSION, Arrays.copyOf(raw, length));
            assertThat(report.key()).isNotBlank();
            assertThat(report.recipients()).extracting(BounceReport.Recipient::address)
                    .allMatch(a -> a.equals("a@bounce.test") || a.equals("b@bounce.test"));
        }
    }

    @Test
    void garbageAndEmptyInputAreUnrecognised() {
        assertThat(BounceClassifier.classify(SESSION, new byte[0]).kind()).isEqualTo(BounceReport.Kind.UNRECOGNISED);
        byte[] noise = new byte[4096];
        new java.util.Random(7).nextBytes(noise);
        assertThat(BounceClassifier.classify(SESSION, noise).kind()).isEqualTo(BounceReport.Kind.UNRECOGNISED);
        assertThat(BounceClassifier.classify(SESSION, ascii("""
                Content-Type: multipart/report; report-type=delivery-status; boundary="b"

                --b
                Content-Type: message/delivery-status

                Reporting-MTA: dns; x

                Final-Recipient: rfc822; not-an-address
                Action: failed
                Status: 5.1.1
                --b--
                """)).recipients()).isEmpty();
    }

    @Test
    void theReplyCodeIsReadFromAnSmtpDiagnosticOnly() {
        assertThat(new BounceReport.Recipient("a@x", "a@x", BounceReport.Action.FAILED, "5.1.1",
                "550 5.1.1 <a@x>: Recipient address rejected").replyCode()).isEqualTo(550);
        assertThat(new BounceReport.Recipient("a@x", "a@x", BounceReport.Action.FAILED, "5.1.1",
                "mailbox unknown").replyCode()).isNull();
        assertThat(new BounceReport.Recipient("a@x", "a@x", BounceReport.Action.FAILED, "5.1.1",
                "5501 odd").replyCode()).isNull();
    }

    @Test
    void aVerifiedVerpTokenOfTheEnvelopeRecipientNamesTheMailAndRecipient() throws IOException {
        VerpToken verp = new VerpToken(VerpTokenTest.SECRET);
        String address = VerpAddress.of("bounces@mailqueue.test", verp.of(42, 1));
        byte[] raw = fixture("postfix-failed.eml");
        VerpToken.Named named = new VerpToken.Named(42, java.util.Optional.of(1));

        BounceReport delivered = BounceClassifier.classify(SESSION, prepend("Delivered-To: " + address, raw), verp);
        assertThat(delivered.verp()).isEqualTo(named);
        assertThat(delivered.originalMessageId()).as("still read").isEqualTo("<fixture-1@mailqueue.test>");
        assertThat(delivered.summary()).contains("VERP names mail 42, recipient 1");
        assertThat(BounceClassifier.classify(SESSION, prepend("X-Original-To: <" + address.toUpperCase() + ">", raw), verp)
                .verp()).isEqualTo(named);

        String token = verp.of(42, 1);
        String altered = address.replace(token, token.substring(0, token.length() - 1) + (token.endsWith("0") ? "1" : "0"));
        assertThat(BounceClassifier.classify(SESSION, prepend("Delivered-To: " + altered, raw), verp).verp())
                .as("a token that does not verify").isNull();
        assertThat(BounceClassifier.classify(SESSION, prepend("Delivered-To: " + address, raw), new VerpToken(
                VerpTokenTest.SECRET + "-other")).verp()).as("another secret").isNull();
        assertThat(BounceClassifier.classify(SESSION, prepend("Delivered-To: " + address, raw)).verp())
                .as("no secret configured").isNull();
        assertThat(BounceClassifier.classify(SESSION, raw, verp).verp()).as("the fixture's To has no token").isNull();
    }

    @Test
    void aComplaintWithoutItsRecipientIsNamedByTheTokenInTheReturnedMessagesReturnPath() {
        VerpToken verp = new VerpToken(VerpTokenTest.SECRET);
        String returnPath = VerpAddress.of("bounces@mailqueue.test", verp.of(7, 2));
        byte[] raw = arf(null, "Return-Path: <" + returnPath + ">\r\n");

        BounceReport report = BounceClassifier.classify(SESSION, raw, verp);
        assertThat(report.kind()).isEqualTo(BounceReport.Kind.COMPLAINT);
        assertThat(report.verp()).isEqualTo(new VerpToken.Named(7, java.util.Optional.of(2)));
        assertThat(report.recipients()).singleElement().satisfies(r -> {
            assertThat(r.address()).isNull();
            assertThat(r.action()).isEqualTo(BounceReport.Action.COMPLAINED);
        });
        assertThat(BounceClassifier.classify(SESSION, arf(null, ""), verp).kind())
                .as("no recipient and no token: nothing to act on").isEqualTo(BounceReport.Kind.UNRECOGNISED);
    }

    /** A minimal ARF report (RFC 5965) about a returned message with the given extra header fields. */
    static byte[] arf(String originalRcptTo, String returnedFields) {
        return ("From: fbl@provider.example\r\n"
                + "To: abuse@mailqueue.test\r\n"
                + "Message-ID: <arf-" + System.nanoTime() + "@provider.example>\r\n"
                + "MIME-Version: 1.0\r\n"
                + "Content-Type: multipart/report; report-type=feedback-report; boundary=\"b\"\r\n\r\n"
                + "--b\r\nContent-Type: text/plain\r\n\r\nA complaint.\r\n"
                + "--b\r\nContent-Type: message/feedback-report\r\n\r\n"
                + "Feedback-Type: abuse\r\nUser-Agent: test/1.0\r\nVersion: 1\r\n"
                + (originalRcptTo == null ? "" : "Original-Rcpt-To: " + originalRcptTo + "\r\n") + "\r\n"
                + "--b\r\nContent-Type: message/rfc822\r\n\r\n"
                + returnedFields + "From: news@sender.example\r\nMessage-ID: <orig-1@sender.example>\r\n"
                + "Subject: news\r\n\r\nbody\r\n--b--\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] prepend(String field, byte[] raw) {
        byte[] line = (field + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] result = Arrays.copyOf(line, line.length + raw.length);
        System.arraycopy(raw, 0, result, line.length, raw.length);
        return result;
    }

    private static byte[] fixture(String name) throws IOException {
        try (InputStream in = BounceClassifierTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    private static byte[] ascii(String text) {
        return text.replace("\n", "\r\n").getBytes(StandardCharsets.US_ASCII);
    }
}
