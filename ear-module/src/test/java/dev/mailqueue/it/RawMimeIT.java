package dev.mailqueue.it;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import jakarta.activation.DataHandler;
import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;
import org.apache.james.jdkim.DKIMSigner;
import org.apache.james.jdkim.DKIMVerifier;
import org.apache.james.jdkim.exceptions.FailException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Raw MIME enqueue ({@code POST /api/mails} with {@code Content-Type: message/rfc822}) against the real server
 * and a real SMTP server: a DKIM-signed multipart message with an attachment and its own Message-ID arrives
 * with its signature still valid (checked by Apache James jDKIM with the test's public key, and shown to fail
 * once a signed field is changed) and its body byte for byte, each Bcc recipient gets it without the Bcc field;
 * an envelope given in the query overrides the header fields, and a message without Message-ID and Date gets
 * them; a message the queue cannot send as it is is refused with problem details naming what is wrong, and
 * nothing is queued. Database-neutral: what it checks is parsing, the envelope and the bytes on the wire; the raw
 * column's round trip (every byte value, read back equal, and a 400 KB message read as the send reads it) is checked
 * on each database by the store test {@code ContentWrittenOnceTest}, and the WildFly run repeats this test on
 * PostgreSQL.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class RawMimeIT extends QueueServerIT {

    private static final String SIGNED = "from:to:cc:subject:date:message-id:mime-version:content-type";

    @Test
    void aSignedMessageWithAnAttachmentArrivesByteForByteWithItsSignatureValid() throws Exception {
        String messageId = "<raw-" + System.nanoTime() + "@shop.example>";
        byte[] pdf = new byte[120_000];
        new Random(30).nextBytes(pdf);
        MimeMessage composed = new MimeMessage(Session.getInstance(new Properties())) {
            @Override
            protected void updateMessageID() throws jakarta.mail.MessagingException {
                setHeader("Message-ID", messageId);
            }
        };
        composed.setFrom("Shop <billing@shop.example>");
        composed.setRecipients(Message.RecipientType.TO, "Customer <raw-to@raw.example>");
        composed.setRecipients(Message.RecipientType.CC, "raw-cc@raw.example");
        composed.setRecipients(Message.RecipientType.BCC, "raw-bcc@raw.example");
        composed.setSubject("Ihre Rechnung für März", "UTF-8");
        composed.setSentDate(new Date());
        MimeBodyPart text = new MimeBodyPart();
        text.setText("Invoice attached.\r\nSecond line.\r\n", "UTF-8");
        MimeBodyPart file = new MimeBodyPart();
        file.setDataHandler(new DataHandler(new ByteArrayDataSource(pdf, "application/pdf")));
        file.setFileName("invoice.pdf");
        composed.setContent(new MimeMultipart(text, file));
        composed.saveChanges();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        composed.writeTo(out);
        KeyPair keys = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        byte[] message = sign(out.toByteArray(), keys);

        HttpResponse<String> response = QueueApi.postRaw("", message);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        Map<String, Object> receipt = QueueApi.jsonObject(response.body());
        assertThat(receipt.get("messageId")).as("its own Message-ID is its identity").isEqualTo(messageId);
        long id = ((Number) receipt.get("id")).longValue();
        MailView view = QueueApi.awaitStatus(id, MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(view.getSubject()).isEqualTo("Ihre Rechnung für März");
        for (String recipient : List.of("raw-to@raw.example", "raw-cc@raw.example", "raw-bcc@raw.example")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !SMTP.inbox(recipient).isEmpty());
            MimeMessage received = SMTP.inbox(recipient).get(0);
            assertThat(received.getMessageID()).isEqualTo(messageId);
            assertThat(received.getHeader("Bcc")).as("the blind copy is not shown to %s", recipient).isNull();
            byte[] arrived = bytes(received);
            assertThat(body(arrived)).as("the body as it was signed").isEqualTo(body(message));
            assertThat(new DKIMVerifier((method, selector, domain) -> List.of("v=DKIM1; k=rsa; p="
                    + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded()))).verify(
                    new ByteArrayInputStream(arrived))).as("signatures that verify").hasSize(1);
        }
        byte[] changed = new String(bytes(SMTP.inbox("raw-to@raw.example").get(0)), StandardCharsets.ISO_8859_1)
                .replace("raw-to@raw.example", "raw-to@elsewhere.example").getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> new DKIMVerifier((method, selector, domain) -> List.of("v=DKIM1; k=rsa; p="
                + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded()))).verify(new ByteArrayInputStream(changed)))
                .as("the verification fails once a signed field changed").isInstanceOf(FailException.class);
    }

    @Test
    void theQueryEnvelopeOverridesTheHeaderFieldsAndMissingMessageIdAndDateAreAdded() throws Exception {
        byte[] message = ("From: News <news@shop.example>\r\n"
                + "To: Everyone <everyone@list.raw.example>\r\n"
                + "Subject: Envelope from the query\r\n"
                + "\r\n"
                + "Hello members.\r\n").getBytes(StandardCharsets.US_ASCII);

        HttpResponse<String> response = QueueApi.postRaw("?from=bounces-raw@shop.example&to=member-1@raw.example"
                + "&to=member-2@raw.example&priority=7&reference=raw-envelope", message);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        Map<String, Object> receipt = QueueApi.jsonObject(response.body());
        String messageId = (String) receipt.get("messageId");
        assertThat(messageId).matches("<.+@shop\\.example>");
        MailView view = QueueApi.awaitStatus(((Number) receipt.get("id")).longValue(), MailStatus.SENT,
                Duration.ofSeconds(30));
        assertThat(view.getFrom()).isEqualTo("bounces-raw@shop.example");
        assertThat(view.getBcc()).containsExactly("member-1@raw.example", "member-2@raw.example");
        assertThat(view.getPriority()).isEqualTo(7);
        for (String member : List.of("member-1@raw.example", "member-2@raw.example")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !SMTP.inbox(member).isEmpty());
            MimeMessage received = SMTP.inbox(member).get(0);
            assertThat(received.getMessageID()).isEqualTo(messageId);
            assertThat(received.getSentDate()).as("Date added").isNotNull();
            assertThat(received.getHeader("Return-Path", null)).isEqualTo("<bounces-raw@shop.example>");
            assertThat(received.getHeader("To", null)).isEqualTo("Everyone <everyone@list.raw.example>");
            assertThat(body(bytes(received))).isEqualTo("Hello members.".getBytes(StandardCharsets.US_ASCII));
        }
        assertThat(SMTP.inbox("everyone@list.raw.example")).as("the header's address is not the envelope's").isEmpty();
    }

    @Test
    void aMessageTheQueueCannotSendAsItIsIsRefusedNamingTheFaultAndNothingIsQueued() {
        String duplicateId = "<dup-" + System.nanoTime() + "@shop.example>";
        HttpResponse<String> first = QueueApi.postRaw("", ("Message-ID: " + duplicateId + "\r\nFrom: a@shop.example\r\n"
                + "To: dup@raw.example\r\n\r\nonce\r\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        long stored = QueueApi.storedMails();
        record Case(String query, byte[] message, int status, String field) {
        }
        List<Case> cases = List.of(
                new Case("", new byte[0], 400, "message"),
                new Case("", "just some text, no header\r\n".getBytes(StandardCharsets.US_ASCII), 400, "message"),
                new Case("", ("From: a@shop.example\r\nTo: b@raw.example\r\nX-Long: " + "x".repeat(1000) + "\r\n\r\nbody\r\n")
                        .getBytes(StandardCharsets.US_ASCII), 400, "message"),
                new Case("", "To: b@raw.example\r\n\r\nno author\r\n".getBytes(StandardCharsets.US_ASCII), 400, "message.From"),
                new Case("", "From: a@shop.example\r\nSubject: nobody\r\n\r\nno recipient\r\n".getBytes(StandardCharsets.US_ASCII),
                        400, "message.To"),
                new Case("", latin1("From: a@shop.example\r\nTo: b@raw.example\r\nSubject: Gr\u00fc\u00dfe\r\n\r\nx\r\n"),
                        400, "message.Subject"),
                new Case("", ("From: a@shop.example\r\nTo: b@raw.example\r\nMessage-ID: not-an-id\r\n\r\nx\r\n")
                        .getBytes(StandardCharsets.US_ASCII), 400, "message.Message-ID"),
                new Case("", ("Message-ID: " + duplicateId + "\r\nFrom: a@shop.example\r\nTo: b@raw.example\r\n\r\nagain\r\n")
                        .getBytes(StandardCharsets.US_ASCII), 400, "message.Message-ID"),
                new Case("?to=not-an-address", "From: a@shop.example\r\nTo: b@raw.example\r\n\r\nx\r\n"
                        .getBytes(StandardCharsets.US_ASCII), 400, "to[0]"),
                new Case("?priority=high", "From: a@shop.example\r\nTo: b@raw.example\r\n\r\nx\r\n"
                        .getBytes(StandardCharsets.US_ASCII), 400, "priority"),
                new Case("?subject=x", "From: a@shop.example\r\nTo: b@raw.example\r\n\r\nx\r\n"
                        .getBytes(StandardCharsets.US_ASCII), 400, "subject"),
                new Case("", "From: boss@other.example\r\nTo: b@raw.example\r\n\r\nx\r\n"
                        .getBytes(StandardCharsets.US_ASCII), 403, "message.From"),
                new Case("?from=bounces@other.example", "From: a@shop.example\r\nTo: b@raw.example\r\n\r\nx\r\n"
                        .getBytes(StandardCharsets.US_ASCII), 403, "from"));

        for (Case c : cases) {
            HttpResponse<String> response = QueueApi.postRaw(c.query(), c.message());

            assertThat(response.statusCode()).as("%s: %s", new String(c.message(), StandardCharsets.ISO_8859_1),
                    response.body()).isEqualTo(c.status());
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(Problems.fields(response.body())).as(response.body()).contains(c.field());
        }
        assertThat(QueueApi.storedMails()).as("nothing queued").isEqualTo(stored);
    }

    /** @return the message with a DKIM-Signature field (RFC 6376) over {@link #SIGNED} and the body, first */
    private static byte[] sign(byte[] message, KeyPair keys) throws Exception {
        String signature = new DKIMSigner("v=1; a=rsa-sha256; c=relaxed/simple; d=shop.example; s=raw; h=" + SIGNED
                + "; bh=; b=;", keys.getPrivate()).sign(new ByteArrayInputStream(message));
        if (!signature.regionMatches(true, 0, "DKIM-Signature:", 0, 15)) {
            signature = "DKIM-Signature: " + signature;
        }
        ByteArrayOutputStream signed = new ByteArrayOutputStream();
        signed.writeBytes(signature.getBytes(StandardCharsets.US_ASCII));
        signed.writeBytes(new byte[]{'\r', '\n'});
        signed.writeBytes(message);
        return signed.toByteArray();
    }

    private static byte[] bytes(MimeMessage message) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        message.writeTo(out);
        return out.toByteArray();
    }

    /**
     * @return what follows the first empty line, without a last CRLF: SMTP's end of data (CRLF . CRLF, RFC 5321
     *         §4.1.1.4) takes the message's last CRLF with it, and GreenMail stores the message without it
     */
    private static byte[] body(byte[] message) {
        for (int i = 0; i + 3 < message.length; i++) {
            if (message[i] == '\r' && message[i + 1] == '\n' && message[i + 2] == '\r' && message[i + 3] == '\n') {
                int end = message.length;
                if (end >= i + 6 && message[end - 2] == '\r' && message[end - 1] == '\n') {
                    end -= 2;
                }
                return Arrays.copyOfRange(message, i + 4, end);
            }
        }
        throw new AssertionError("no empty line in the message");
    }

    private static byte[] latin1(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }
}
