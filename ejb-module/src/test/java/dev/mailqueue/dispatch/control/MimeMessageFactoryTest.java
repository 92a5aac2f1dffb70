package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.AddressNames;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.NewMail;
import jakarta.mail.Address;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.Message;
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
import java.time.Instant;
import java.util.Map;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MIME message composed from a queued row, read back from the bytes that would go on the wire:
 * the stored Message-ID (also after another save), sender with display name, recipients, subject and
 * bodies in UTF-8, and the body structure for text, HTML or both. (That Bcc stays out of what SMTP
 * sends is checked against a real server in {@link MailDeliveryTest}.)
 */
class MimeMessageFactoryTest {

    static final Instant CREATED = Instant.parse("2030-03-14T09:26:53Z");
    static final String MESSAGE_ID = "<0b6f3f0e-6f43-4a39-9d4e-3f4a2b1c9d10@example.com>";

    final Session session = Session.getInstance(new Properties());

    /** A claimed mail as a test sets it up; {@link #compose} turns it into the message. */
    static final class Row {
        String fromName = "Jörg Müller";
        List<String> cc = List.of("carol@example.net");
        String subject = "Your order";
        String text = "Thank you.";
        String html;
        List<byte[]> files = new ArrayList<>();
        List<ClaimedMail.AttachmentInfo> attachments = new ArrayList<>();
        List<NewMail.Header> headers = new ArrayList<>();

        Row attach(String name, String type, byte[] content) {
            attachments.add(new ClaimedMail.AttachmentInfo(1, files.size(), name, type, content.length));
            files.add(content);
            return this;
        }
    }

    static Row row() {
        return new Row();
    }

    MimeMessage compose(Row r) throws MessagingException {
        ClaimedMail mail = new ClaimedMail(1, MESSAGE_ID, CREATED, 5, null, "joerg@example.com", r.fromName,
                "help@example.com", List.of("alice@example.com", "bob@example.org"), r.cc, List.of("dave@example.com"),
                r.subject, "mailqueue", Map.of(), r.headers, r.attachments, null);
        return MimeMessageFactory.compose(session, mail, new ClaimedMail.Body(r.text, r.html),
                (id, seq) -> r.files.get(seq));
    }

    @Test
    void theMessageCarriesTheStoredMessageIdAlsoAfterAnotherSave() throws Exception {
        MimeMessage composed = compose(row());

        assertThat(composed.getMessageID()).isEqualTo(MESSAGE_ID);
        composed.saveChanges();
        assertThat(composed.getMessageID()).isEqualTo(MESSAGE_ID);
        assertThat(onTheWire(composed).getMessageID()).isEqualTo(MESSAGE_ID);
    }

    @Test
    void everyAttemptOfTheSameMailCarriesTheSameMessageId() throws Exception {
        MimeMessage first = compose(row());
        MimeMessage second = compose(row());

        assertThat(onTheWire(second).getMessageID()).isEqualTo(onTheWire(first).getMessageID()).isEqualTo(MESSAGE_ID);
    }

    /** Issue 12: names on every header address, RFC 2047-encoded where not ASCII, quoted where they hold a comma. */
    @Test
    void everyAddressCarriesItsNameEncoded() throws Exception {
        ClaimedMail mail = new ClaimedMail(1, MESSAGE_ID, CREATED, 5, null, "joerg@example.com", null,
                "help@example.com", List.of("alice@example.com", "pat@xn--bcher-kva.example"), List.of("bob@example.org"),
                List.of("dave@example.com"), "Hi", "mailqueue", Map.of(), List.of(), List.of(), null,
                AddressNames.of("Help, Desk", List.of("Doe, Alice", "Pât"), List.of("Bob \"B\" Smith"), List.of("Dave")));
        MimeMessage composed = MimeMessageFactory.compose(session, mail, new ClaimedMail.Body("x", null), (id, seq) -> null);

        assertThat(MimeUtility.unfold(composed.getHeader("To", ",")).replace('\t', ' ')).isEqualTo("\"Doe, Alice\" <alice@example.com>, =?UTF-8?Q?P=C3=A2t?= <pat@xn--bcher-kva.example>");
        assertThat(composed.getHeader("Cc", ",")).isEqualTo("\"Bob \\\"B\\\" Smith\" <bob@example.org>");
        assertThat(composed.getHeader("Reply-To", ",")).isEqualTo("\"Help, Desk\" <help@example.com>");
        MimeMessage received = onTheWire(composed);
        assertThat(((InternetAddress) received.getRecipients(Message.RecipientType.TO)[0]).getPersonal()).isEqualTo("Doe, Alice");
        assertThat(((InternetAddress) received.getRecipients(Message.RecipientType.TO)[1]).getPersonal()).isEqualTo("Pât");
    }

    @Test
    void fromCarriesTheSendersDisplayName() throws Exception {
        MimeMessage received = onTheWire(compose(row()));

        assertThat(received.getFrom()).singleElement().satisfies(from -> {
            InternetAddress address = (InternetAddress) from;
            assertThat(address.getAddress()).isEqualTo("joerg@example.com");
            assertThat(address.getPersonal()).isEqualTo("Jörg Müller");
        });
    }

    @Test
    void aSenderWithoutDisplayNameIsTheBareAddress() throws Exception {
        Row mail = row();
        mail.fromName = null;

        MimeMessage received = onTheWire(compose(mail));

        assertThat(received.getHeader("From", null)).isEqualTo("joerg@example.com");
    }

    @Test
    void toCcAndReplyToAreInTheHeaders() throws Exception {
        MimeMessage received = onTheWire(compose(row()));

        assertThat(addresses(received.getRecipients(RecipientType.TO))).containsExactly("alice@example.com", "bob@example.org");
        assertThat(addresses(received.getRecipients(RecipientType.CC))).containsExactly("carol@example.net");
        assertThat(addresses(received.getReplyTo())).containsExactly("help@example.com");
    }

    @Test
    void bccRecipientsAreAmongTheRecipientsTheMessageIsSentTo() throws Exception {
        MimeMessage composed = compose(row());

        assertThat(addresses(composed.getAllRecipients())).containsExactlyInAnyOrder(
                "alice@example.com", "bob@example.org", "carol@example.net", "dave@example.com");
    }

    @Test
    void aMailWithoutCcHasNoCcHeader() throws Exception {
        Row mail = row();
        mail.cc = List.of();

        MimeMessage received = onTheWire(compose(mail));

        assertThat(received.getHeader("Cc")).isNull();
    }

    @Test
    void theDateIsTheTimeTheMailWasQueued() throws Exception {
        MimeMessage received = onTheWire(compose(row()));

        assertThat(received.getSentDate().toInstant()).isEqualTo(CREATED);
    }

    @Test
    void aUtf8SubjectIsEncodedForTheHeaderAndReadsBackTheSame() throws Exception {
        Row mail = row();
        mail.subject = "Grüße aus Köln – ☃ 日本語";

        MimeMessage composed = compose(mail);

        String rawHeader = composed.getHeader("Subject", null);
        assertThat(rawHeader).startsWithIgnoringCase("=?UTF-8?");
        assertThat(rawHeader.chars()).allMatch(c -> c < 128);
        assertThat(onTheWire(composed).getSubject()).isEqualTo("Grüße aus Köln – ☃ 日本語");
    }

    @Test
    void textAndHtmlMakeAMultipartAlternativeWithTextFirst() throws Exception {
        Row mail = row();
        mail.text = "Grüße – plain";
        mail.html = "<p>Grüße – <b>html</b> ☃</p>";

        MimeMessage received = onTheWire(compose(mail));

        assertThat(received.isMimeType("multipart/alternative")).isTrue();
        Multipart parts = (Multipart) received.getContent();
        assertThat(parts.getCount()).isEqualTo(2);
        assertTextPart(parts.getBodyPart(0), "text/plain", "Grüße – plain");
        assertTextPart(parts.getBodyPart(1), "text/html", "<p>Grüße – <b>html</b> ☃</p>");
    }

    @Test
    void htmlOnlyMakesATextHtmlMessage() throws Exception {
        Row mail = row();
        mail.text = null;
        mail.html = "<p>Grüße ☃</p>";

        MimeMessage received = onTheWire(compose(mail));

        assertTextPart(received, "text/html", "<p>Grüße ☃</p>");
    }

    @Test
    void textOnlyMakesATextPlainMessage() throws Exception {
        Row mail = row();
        mail.text = "Grüße ☃\r\nLine two";

        MimeMessage received = onTheWire(compose(mail));

        assertTextPart(received, "text/plain", "Grüße ☃\r\nLine two");
    }

    /**
     * The body is handed to Jakarta Mail as UTF-8 bytes, not as a {@code String} (the byte-at-a-time path): what goes
     * on the wire must be what {@code setText} would have written, header fields and transfer encoding included.
     */
    @Test
    void aTextBodyIsWrittenByteForByteAsSetTextWouldWriteIt() throws Exception {
        List<String> texts = List.of("", "Thank you.", "Line one\r\nLine two\r\n", "bare\nline feeds\n",
                ".a dot\r\n.at line starts", "trailing spaces   \r\nand\ttabs\t", "x".repeat(1200),
                "Grüße aus Köln, ein ganz normaler Satz mit zwei Umlauten.", "日本語のテキストです。", "☃ 🙂 emoji only",
                "<p>Grüße – <b>html</b> ☃</p>", "mixed\r\n" + "ü".repeat(500) + "\r\nend");
        for (String subtype : List.of("plain", "html")) {
            for (String text : texts) {
                MimeMessage viaSetText = new MimeMessage(session);
                viaSetText.setText(text, "UTF-8", subtype);
                viaSetText.saveChanges();
                MimeMessage viaBytes = new MimeMessage(session);
                MimeMessageFactory.text(viaBytes, text, subtype);
                viaBytes.saveChanges();

                assertThat(wire(viaBytes, "Message-ID", "Date")).as("text/%s %s", subtype, text)
                        .isEqualTo(wire(viaSetText, "Message-ID", "Date"));
            }
        }
    }

    @Test
    void attachmentsMakeAMultipartMixedWithTheAlternativeBodyFirstThenEachFileWithItsNameAndBytes() throws Exception {
        byte[] pdf = new byte[70_000];
        new java.util.Random(7).nextBytes(pdf);
        Row mail = row();
        mail.text = "See the invoice.";
        mail.html = "<p>See the invoice.</p>";
        mail.attach("Rechnung Müller.pdf", "application/pdf", pdf)
                .attach("notes.txt", "text/plain; charset=UTF-8", "Grüße ☃".getBytes(StandardCharsets.UTF_8));

        MimeMessage received = onTheWire(compose(mail));

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
        Row mail = row();
        mail.attach("a.bin", "application/octet-stream", new byte[]{0, 1, 2});

        MimeMessage received = onTheWire(compose(mail));

        Multipart mixed = (Multipart) received.getContent();
        assertThat(mixed.getCount()).isEqualTo(2);
        assertTextPart(mixed.getBodyPart(0), "text/plain", "Thank you.");
        assertThat(mixed.getBodyPart(1).getInputStream().readAllBytes()).containsExactly(0, 1, 2);
    }

    @Test
    void customHeadersAreSentInOrderAndNonAsciiValuesAreEncoded() throws Exception {
        Row mail = row();
        mail.headers = List.of(new NewMail.Header("List-Unsubscribe", "<mailto:unsubscribe@example.com?subject=4711>"),
                new NewMail.Header("X-Campaign", "Frühling – ☃ " + "x".repeat(120)));

        MimeMessage composed = compose(mail);
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

    private static String wire(MimeMessage message, String... ignored) throws MessagingException, IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        message.writeTo(bytes, ignored);
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }

    private static List<String> addresses(Address[] addresses) {
        return addresses == null ? List.of()
                : Arrays.stream(addresses).map(a -> ((InternetAddress) a).getAddress()).toList();
    }
}
