package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.MailAttachment;
import dev.mailqueue.mail.entity.MailHeader;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.mail.Address;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MIME message composed from a queued row, read back from the bytes that would go on the wire:
 * the stored Message-ID (also after another save), sender with display name, recipients, subject and
 * bodies in UTF-8, and the body structure for text, HTML or both. (That Bcc stays out of what SMTP
 * sends is checked against a real server in {@link SmtpConnectionTest}.)
 */
class MimeMessageFactoryTest {

    static final LocalDateTime CREATED = LocalDateTime.of(2030, 3, 14, 9, 26, 53);
    static final String MESSAGE_ID = "<0b6f3f0e-6f43-4a39-9d4e-3f4a2b1c9d10@example.com>";

    final Session session = Session.getInstance(new Properties());

    static MailMessage row() {
        MailMessage mail = new MailMessage();
        mail.setMessageId(MESSAGE_ID);
        mail.setStatus(MailStatus.SENDING);
        mail.setPriority(4);
        mail.setCreatedAt(CREATED);
        mail.setNotBefore(CREATED);
        mail.setAttemptsRemaining(5);
        mail.setFromAddress("joerg@example.com");
        mail.setFromName("Jörg Müller");
        mail.setReplyTo("help@example.com");
        mail.setTo(new ArrayList<>(List.of("alice@example.com", "bob@example.org")));
        mail.setCc(new ArrayList<>(List.of("carol@example.net")));
        mail.setBcc(new ArrayList<>(List.of("dave@example.com")));
        mail.setSubject("Your order");
        mail.setTextBody("Thank you.");
        return mail;
    }

    @Test
    void theMessageCarriesTheStoredMessageIdAlsoAfterAnotherSave() throws Exception {
        MimeMessage composed = MimeMessageFactory.compose(session, row());

        assertThat(composed.getMessageID()).isEqualTo(MESSAGE_ID);
        composed.saveChanges();
        assertThat(composed.getMessageID()).isEqualTo(MESSAGE_ID);
        assertThat(onTheWire(composed).getMessageID()).isEqualTo(MESSAGE_ID);
    }

    @Test
    void everyAttemptOfTheSameMailCarriesTheSameMessageId() throws Exception {
        MimeMessage first = MimeMessageFactory.compose(session, row());
        MimeMessage second = MimeMessageFactory.compose(session, row());

        assertThat(onTheWire(second).getMessageID()).isEqualTo(onTheWire(first).getMessageID()).isEqualTo(MESSAGE_ID);
    }

    @Test
    void fromCarriesTheSendersDisplayName() throws Exception {
        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, row()));

        assertThat(received.getFrom()).singleElement().satisfies(from -> {
            InternetAddress address = (InternetAddress) from;
            assertThat(address.getAddress()).isEqualTo("joerg@example.com");
            assertThat(address.getPersonal()).isEqualTo("Jörg Müller");
        });
    }

    @Test
    void aSenderWithoutDisplayNameIsTheBareAddress() throws Exception {
        MailMessage mail = row();
        mail.setFromName(null);

        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, mail));

        assertThat(received.getHeader("From", null)).isEqualTo("joerg@example.com");
    }

    @Test
    void toCcAndReplyToAreInTheHeaders() throws Exception {
        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, row()));

        assertThat(addresses(received.getRecipients(RecipientType.TO))).containsExactly("alice@example.com", "bob@example.org");
        assertThat(addresses(received.getRecipients(RecipientType.CC))).containsExactly("carol@example.net");
        assertThat(addresses(received.getReplyTo())).containsExactly("help@example.com");
    }

    @Test
    void bccRecipientsAreAmongTheRecipientsTheMessageIsSentTo() throws Exception {
        MimeMessage composed = MimeMessageFactory.compose(session, row());

        assertThat(addresses(composed.getAllRecipients())).containsExactlyInAnyOrder(
                "alice@example.com", "bob@example.org", "carol@example.net", "dave@example.com");
    }

    @Test
    void aMailWithoutCcHasNoCcHeader() throws Exception {
        MailMessage mail = row();
        mail.setCc(new ArrayList<>());

        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, mail));

        assertThat(received.getHeader("Cc")).isNull();
    }

    @Test
    void theDateIsTheTimeTheMailWasQueued() throws Exception {
        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, row()));

        assertThat(received.getSentDate().toInstant()).isEqualTo(Utc.toInstant(CREATED));
    }

    @Test
    void aUtf8SubjectIsEncodedForTheHeaderAndReadsBackTheSame() throws Exception {
        MailMessage mail = row();
        mail.setSubject("Grüße aus Köln – ☃ 日本語");

        MimeMessage composed = MimeMessageFactory.compose(session, mail);

        String rawHeader = composed.getHeader("Subject", null);
        assertThat(rawHeader).startsWithIgnoringCase("=?UTF-8?");
        assertThat(rawHeader.chars()).allMatch(c -> c < 128);
        assertThat(onTheWire(composed).getSubject()).isEqualTo("Grüße aus Köln – ☃ 日本語");
    }

    @Test
    void textAndHtmlMakeAMultipartAlternativeWithTextFirst() throws Exception {
        MailMessage mail = row();
        mail.setTextBody("Grüße – plain");
        mail.setHtmlBody("<p>Grüße – <b>html</b> ☃</p>");

        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, mail));

        assertThat(received.isMimeType("multipart/alternative")).isTrue();
        Multipart parts = (Multipart) received.getContent();
        assertThat(parts.getCount()).isEqualTo(2);
        assertTextPart(parts.getBodyPart(0), "text/plain", "Grüße – plain");
        assertTextPart(parts.getBodyPart(1), "text/html", "<p>Grüße – <b>html</b> ☃</p>");
    }

    @Test
    void htmlOnlyMakesATextHtmlMessage() throws Exception {
        MailMessage mail = row();
        mail.setTextBody(null);
        mail.setHtmlBody("<p>Grüße ☃</p>");

        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, mail));

        assertTextPart(received, "text/html", "<p>Grüße ☃</p>");
    }

    @Test
    void textOnlyMakesATextPlainMessage() throws Exception {
        MailMessage mail = row();
        mail.setTextBody("Grüße ☃\r\nLine two");

        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, mail));

        assertTextPart(received, "text/plain", "Grüße ☃\r\nLine two");
    }

    @Test
    void attachmentsMakeAMultipartMixedWithTheAlternativeBodyFirstThenEachFileWithItsNameAndBytes() throws Exception {
        byte[] pdf = new byte[70_000];
        new java.util.Random(7).nextBytes(pdf);
        MailMessage mail = row();
        mail.setTextBody("See the invoice.");
        mail.setHtmlBody("<p>See the invoice.</p>");
        mail.setAttachments(new ArrayList<>(List.of(
                new MailAttachment(0, "Rechnung Müller.pdf", "application/pdf", pdf),
                new MailAttachment(1, "notes.txt", "text/plain; charset=UTF-8", "Grüße ☃".getBytes(StandardCharsets.UTF_8)))));

        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, mail));

        assertThat(received.isMimeType("multipart/mixed")).as(received.getContentType()).isTrue();
        Multipart mixed = (Multipart) received.getContent();
        assertThat(mixed.getCount()).isEqualTo(3);
        assertThat(mixed.getBodyPart(0).isMimeType("multipart/alternative")).isTrue();
        Multipart alternative = (Multipart) mixed.getBodyPart(0).getContent();
        assertTextPart(alternative.getBodyPart(0), "text/plain", "See the invoice.");
        assertTextPart(alternative.getBodyPart(1), "text/html", "<p>See the invoice.</p>");

        Part file = mixed.getBodyPart(1);
        assertThat(file.isMimeType("application/pdf")).isTrue();
        assertThat(file.getDisposition()).isEqualTo(Part.ATTACHMENT);
        assertThat(MimeUtility.decodeText(file.getFileName())).isEqualTo("Rechnung Müller.pdf");
        assertThat(file.getInputStream().readAllBytes()).isEqualTo(pdf);
        Part notes = mixed.getBodyPart(2);
        assertThat(notes.getFileName()).isEqualTo("notes.txt");
        assertThat(notes.getInputStream().readAllBytes()).isEqualTo("Grüße ☃".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aTextOnlyMailWithAnAttachmentHasTheTextAsItsFirstPart() throws Exception {
        MailMessage mail = row();
        mail.setAttachments(new ArrayList<>(List.of(new MailAttachment(0, "a.bin", "application/octet-stream", new byte[]{0, 1, 2}))));

        MimeMessage received = onTheWire(MimeMessageFactory.compose(session, mail));

        Multipart mixed = (Multipart) received.getContent();
        assertThat(mixed.getCount()).isEqualTo(2);
        assertTextPart(mixed.getBodyPart(0), "text/plain", "Thank you.");
        assertThat(mixed.getBodyPart(1).getInputStream().readAllBytes()).containsExactly(0, 1, 2);
    }

    @Test
    void customHeadersAreSentInOrderAndNonAsciiValuesAreEncoded() throws Exception {
        MailMessage mail = row();
        mail.setHeaders(new ArrayList<>(List.of(
                new MailHeader(0, "List-Unsubscribe", "<mailto:unsubscribe@example.com?subject=4711>"),
                new MailHeader(1, "X-Campaign", "Frühling – ☃ " + "x".repeat(120)))));

        MimeMessage composed = MimeMessageFactory.compose(session, mail);
        MimeMessage received = onTheWire(composed);

        assertThat(received.getHeader("List-Unsubscribe", null)).isEqualTo("<mailto:unsubscribe@example.com?subject=4711>");
        assertThat(MimeUtility.decodeText(MimeUtility.unfold(received.getHeader("X-Campaign", null))))
                .isEqualTo("Frühling – ☃ " + "x".repeat(120));
        assertThat(received.getMessageID()).isEqualTo(MESSAGE_ID);
    }

    private static void assertTextPart(Part part, String mimeType, String content) throws MessagingException, IOException {
        assertThat(part.isMimeType(mimeType)).as("%s is %s", part.getContentType(), mimeType).isTrue();
        assertThat(new ContentType(part.getContentType()).getParameter("charset")).isEqualToIgnoringCase("UTF-8");
        assertThat(part.getContent()).isEqualTo(content);
    }

    /** @return the message as a receiver parses it from the bytes the composed message writes */
    private MimeMessage onTheWire(MimeMessage composed) throws MessagingException, IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        composed.writeTo(bytes);
        assertThat(bytes.toString(StandardCharsets.ISO_8859_1).chars()).as("7-bit clean").allMatch(c -> c < 128);
        return new MimeMessage(session, new ByteArrayInputStream(bytes.toByteArray()));
    }

    private static List<String> addresses(Address[] addresses) {
        return addresses == null ? List.of()
                : Arrays.stream(addresses).map(a -> ((InternetAddress) a).getAddress()).toList();
    }
}
