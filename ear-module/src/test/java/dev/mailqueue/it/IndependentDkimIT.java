package dev.mailqueue.it;

import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue's DKIM signatures checked by a verifier that shares no code with the signer (issue 50): dkimpy
 * ({@link Dkimpy}), given the TXT record the admin API says to publish, verifies the bytes the SMTP server received
 * for mail from {@code signed.example} entering each way: JSON with non-ASCII names and subject, HTML and an
 * attachment; raw MIME; a template; the Jakarta Mail transport; SMTP submission. The same bytes with one character of
 * the body changed fail, so the verifier is seen to check. Skipped where dkimpy is not installed ({@code .ci/run}
 * installs {@code python3-dkim}). Database-neutral: the signing happens on the bytes sent, after the store.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class IndependentDkimIT extends QueueServerIT {

    private static final String KEY_NAME = "it2026._domainkey.signed.example";

    private static String record;

    private final String run = Long.toString(System.nanoTime(), 36);

    @BeforeAll
    static void verifierAndRecord() {
        assumeThat(Dkimpy.installed()).as("dkimpy (Debian python3-dkim) at " + Dkimpy.PYTHON).isTrue();
        record = DkimIT.publishedRecord();
    }

    @Test
    void jsonMailWithNonAsciiNamesHtmlAndAnAttachmentVerifies() throws Exception {
        String to = "json." + run + "@to.example";
        String pdf = Base64.getEncoder().encodeToString("%PDF-1.4 Rechnung für März\n%%EOF\n".repeat(40)
                .getBytes(StandardCharsets.UTF_8));

        HttpResponse<String> answer = QueueApi.post("{\"from\":\"Jürgen Bäcker <orders@signed.example>\","
                + "\"to\":[\"Zoë Ørsted <" + to + ">\"],\"subject\":\"Ihre Bestellung für März – Übersicht\","
                + "\"text\":\"Grüße aus Köln.\\nZeile zwei.\",\"html\":\"<p>Grüße aus <b>Köln</b>.</p>\","
                + "\"attachments\":[{\"filename\":\"Rechnung März.pdf\",\"contentType\":\"application/pdf\","
                + "\"content\":\"" + pdf + "\"}]}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);

        byte[] received = received(to);
        assertThat(new String(received, StandardCharsets.ISO_8859_1)).as("a multipart with the attachment")
                .contains("multipart/mixed").contains("application/pdf");
        assertVerifiesAndAChangedBodyFails(received);
    }

    @Test
    void rawMimeTheQueueSignsVerifies() throws Exception {
        String to = "raw." + run + "@to.example";
        byte[] message = ("From: Shop <orders@signed.example>\r\nTo: " + to + "\r\nSubject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\r\n"
                + "Message-ID: <" + run + ".raw@signed.example>\r\nDate: Sun, 29 Nov 2026 06:00:00 +0000\r\n"
                + "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n"
                + "--b1\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
                + "Grüße,\r\ntrailing spaces and tabs \t \r\n\r\n\r\n"
                + "--b1\r\nContent-Type: application/octet-stream; name=\"a.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + Base64.getMimeEncoder().encodeToString(new byte[3000]) + "\r\n--b1--\r\n")
                .getBytes(StandardCharsets.UTF_8);

        HttpResponse<String> answer = QueueApi.postRaw("", message);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);

        assertVerifiesAndAChangedBodyFails(received(to));
    }

    @Test
    void aTemplatedMailVerifies() throws Exception {
        String name = "dkim-" + run;
        HttpResponse<String> stored = QueueApi.sendAs(TestUser.ADMIN, "PUT", "/api/admin/templates/" + name,
                "{\"defaultLocale\":\"de\",\"locales\":{\"de\":{\"subject\":\"Willkommen, ${name}\","
                        + "\"html\":\"<p>Hallo <b>${name}</b>, schön, dass Sie da sind.</p>\"}}}");
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
        String to = "template." + run + "@to.example";

        HttpResponse<String> answer = QueueApi.post("{\"from\":\"orders@signed.example\",\"to\":[\"" + to + "\"],"
                + "\"template\":{\"name\":\"" + name + "\",\"variables\":{\"name\":\"Jörg & Co\"}}}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);

        assertVerifiesAndAChangedBodyFails(received(to));
    }

    @Test
    void mailThroughTheJakartaMailTransportVerifies() throws Exception {
        String to = "legacy-dkim" + run + "@to.example";

        String messageId = TransportIT.send("commit", "orders@signed.example", to);

        assertThat(messageId).as("the servlet's answer").startsWith("<");
        assertVerifiesAndAChangedBodyFails(received(to));
    }

    @Test
    void mailThroughSmtpSubmissionVerifies() throws Exception {
        String to = "submitted." + run + "@to.example";
        Session session = Session.getInstance(SubmissionIT.client());
        MimeMessage message = new MimeMessage(session);
        message.setFrom("Jürgen <orders@signed.example>");
        message.setRecipients(Message.RecipientType.TO, to);
        message.setSubject("Über SMTP eingereicht", "UTF-8");
        message.setText("Grüße über SMTP.\n", "UTF-8");
        message.saveChanges();

        try (Transport transport = session.getTransport("smtp")) {
            transport.connect("localhost", SubmissionIT.PORT, TestUser.SENDER.name(), TestUser.SENDER.password());
            transport.sendMessage(message, message.getAllRecipients());
        }

        assertVerifiesAndAChangedBodyFails(received(to));
    }

    private static byte[] received(String recipient) throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> !SMTP.inbox(recipient).isEmpty());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SMTP.inbox(recipient).get(0).writeTo(out);
        return out.toByteArray();
    }

    /** dkimpy verifies the bytes, and fails them with the last letter of the body's first line of text changed. */
    private static void assertVerifiesAndAChangedBodyFails(byte[] received) throws Exception {
        Dkimpy.Verdict verdict = Dkimpy.verify(received, KEY_NAME, record);
        assertThat(verdict.passed()).as(verdict.toString()).isTrue();
        assertThat(verdict.output()).startsWith("pass signed.example/it2026");

        String text = new String(received, StandardCharsets.ISO_8859_1);
        int body = text.indexOf("\r\n\r\n") + 4;
        int end = text.indexOf("\r\n", body + 1) < 0 ? text.length() : text.indexOf("\r\n", body + 1);
        int at = end - 1;
        while (at > body && !Character.isLetterOrDigit(text.charAt(at))) {
            at--;
        }
        assertThat(at).as("a letter in the body's first line").isGreaterThan(body);
        char replaced = text.charAt(at) == 'x' ? 'y' : 'x';
        byte[] changed = (text.substring(0, at) + replaced + text.substring(at + 1)).getBytes(StandardCharsets.ISO_8859_1);
        Dkimpy.Verdict broken = Dkimpy.verify(changed, KEY_NAME, record);
        assertThat(broken.exit()).as("negative control, one body character changed: " + broken).isEqualTo(1);
        assertThat(broken.output()).contains("body hash mismatch");
    }
}
