package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.AddressNames;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.NewMail;
import jakarta.activation.DataHandler;
import jakarta.activation.DataSource;
import jakarta.mail.MessagingException;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.internet.MimePart;
import jakarta.mail.internet.MimeUtility;
import jakarta.mail.util.ByteArrayDataSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.IntFunction;

/**
 * Builds the MIME message of a queued mail: From, Reply-To, To, Cc with their display names (RFC 2047
 * where not ASCII), Bcc (envelope only: Jakarta Mail leaves Bcc out of the headers it sends), Subject, Date (the enqueue time), the
 * stable Message-ID, the custom header fields, and a text, an HTML, or a multipart/alternative body,
 * all in UTF-8. With attachments the message is multipart/mixed (RFC 2046 §5.1.3): the body first,
 * then one part per file with Content-Disposition attachment and its file name (RFC 2183; non-ASCII
 * names RFC 2231-encoded). Attachment content is not read here: each file is read from the database
 * when the transport writes it, during DATA ({@link AttachmentReader}), so a claimer holds one file at a
 * time, and its transfer encoding is base64, set up front, so that Jakarta Mail need not read the file to
 * choose one.
 */
public final class MimeMessageFactory {

    private MimeMessageFactory() {
    }

    /** Reads one attachment's bytes when the transport writes it. */
    @FunctionalInterface
    public interface AttachmentReader {
        /**
         * @param mailId the mail that holds it ({@link ClaimedMail.AttachmentInfo#storedWith})
         * @param seqNo  the attachment's position
         * @return its bytes
         */
        byte[] read(long mailId, int seqNo);
    }

    /** As {@link #compose(Session, ClaimedMail, ClaimedMail.Body, AttachmentReader, List)} with no fields added. */
    static GatedMessage compose(Session session, ClaimedMail mail, ClaimedMail.Body body, AttachmentReader attachments)
            throws MessagingException {
        return compose(session, mail, body, attachments, List.of());
    }

    /**
     * @param session     the container's mail session; supplies MIME settings only
     * @param mail        the claimed mail
     * @param body        its bodies
     * @param attachments where its attachments' bytes are read from, during DATA
     * @param added       header fields the queue writes at sending (a list mail's {@code List-Unsubscribe}), after
     *                    the stored ones; a stored field of the same name is left out (mail queued before these
     *                    fields were written at sending stored them)
     * @return the message with its headers saved
     * @throws MessagingException when a stored address or header cannot be encoded
     */
    static GatedMessage compose(Session session, ClaimedMail mail, ClaimedMail.Body body, AttachmentReader attachments,
                                List<NewMail.Header> added) throws MessagingException {
        if (body.raw() != null) {
            return raw(session, mail, body, added);
        }
        GatedMessage message = new GatedMessage(session, mail.messageId());
        AddressNames names = mail.names();
        // Set as text, not with setFrom/setRecipients: with mail.mime.allowutf8 on the session, those would
        // write names unencoded, in UTF-8, also to servers without SMTPUTF8.
        header(message, "From", new InternetAddress[]{named(mail.from(), mail.fromName())});
        if (mail.replyTo() != null) {
            header(message, "Reply-To", new InternetAddress[]{named(mail.replyTo(), names.replyTo())});
        }
        header(message, "To", addresses(mail.to(), names::toName));
        header(message, "Cc", addresses(mail.cc(), names::ccName));
        header(message, "Bcc", addresses(mail.bcc(), names::bccName));
        message.setSubject(mail.subject() == null ? "" : mail.subject(), "UTF-8");
        message.setSentDate(Date.from(mail.createdAt()));
        for (NewMail.Header header : mail.headers()) {
            if (added.stream().noneMatch(a -> a.name().equalsIgnoreCase(header.name()))) {
                message.addHeader(header.name(), encode(header.name(), header.value()));
            }
        }
        for (NewMail.Header header : added) {
            message.addHeader(header.name(), header.value()); // ASCII, written by the queue
        }
        if (mail.attachments().isEmpty()) {
            body(message, body);
        } else {
            MimeBodyPart first = new MimeBodyPart();
            body(first, body);
            MimeMultipart mixed = new MimeMultipart("mixed", first);
            for (ClaimedMail.AttachmentInfo attachment : mail.attachments()) {
                mixed.addBodyPart(attachmentPart(attachment, attachments));
            }
            message.setContent(mixed);
        }
        message.saveChanges();
        return message;
    }

    /**
     * A raw mail's stored message, with the fields the queue writes at sending added after its own (ASCII, so they
     * never make the message need SMTPUTF8).
     */
    private static GatedMessage raw(Session session, ClaimedMail mail, ClaimedMail.Body body,
                                    List<NewMail.Header> added) throws MessagingException {
        List<String> recipients = new java.util.ArrayList<>(mail.to());
        recipients.addAll(mail.cc());
        recipients.addAll(mail.bcc());
        GatedMessage message = new RawGatedMessage(session, mail.messageId(), body.raw(), mail.from(), recipients,
                body.utf8Headers());
        for (NewMail.Header header : added) {
            message.addHeader(header.name(), header.value());
        }
        return message;
    }

    /** Sets the text, HTML or multipart/alternative body on the message or on the first part of a mixed one. */
    private static void body(MimePart part, ClaimedMail.Body body) throws MessagingException {
        String text = body.text();
        String html = body.html();
        if (text != null && html != null) {
            MimeBodyPart textPart = new MimeBodyPart();
            text(textPart, text, "plain");
            MimeBodyPart htmlPart = new MimeBodyPart();
            text(htmlPart, html, "html");
            part.setContent(new MimeMultipart("alternative", textPart, htmlPart));
        } else if (html != null) {
            text(part, html, "html");
        } else {
            text(part, text == null ? "" : text, "plain");
        }
    }

    /**
     * Sets a text body in UTF-8, as {@link MimePart#setText(String, String, String)} would: the same
     * {@code Content-Type} ({@code text/<subtype>; charset=UTF-8}), the same transfer encoding chosen from
     * the bytes (7bit when all ASCII, else quoted-printable or base64), the same bytes on the wire. The text
     * is encoded once, here, and handed over as bytes: Jakarta Mail writes a body given as a {@code String}
     * one byte at a time through its content handler (twice: once to choose the encoding), and looks that
     * handler up each time, which was about a fifth of the server's CPU a dispatched mail (BENCHMARKS.md).
     *
     * @param subtype {@code plain} or {@code html}
     */
    static void text(MimePart part, String text, String subtype) throws MessagingException {
        part.setDataHandler(new DataHandler(new ByteArrayDataSource(text.getBytes(StandardCharsets.UTF_8),
                "text/" + subtype + "; charset=UTF-8")));
    }

    private static MimeBodyPart attachmentPart(ClaimedMail.AttachmentInfo attachment, AttachmentReader reader)
            throws MessagingException {
        MimeBodyPart part = new MimeBodyPart();
        part.setDataHandler(new DataHandler(new StoredFile(attachment, reader)));
        part.setDisposition(Part.ATTACHMENT);
        part.setFileName(attachment.filename());
        part.setHeader("Content-Transfer-Encoding", "base64"); // so Jakarta Mail need not read the file to choose
        return part;
    }

    /** An attachment whose bytes are read from the database each time they are written. */
    private record StoredFile(ClaimedMail.AttachmentInfo info, AttachmentReader reader) implements DataSource {

        /**
         * @throws IOException when the bytes cannot be read: the transport then drops the connection
         *                     before the end of DATA, and the attempt fails with this as its error
         */
        @Override
        public InputStream getInputStream() throws IOException {
            try {
                return new ByteArrayInputStream(reader.read(info.storedWith(), info.seqNo()));
            } catch (RuntimeException e) {
                throw new IOException("could not read attachment " + info.seqNo() + " (" + info.filename() + ")", e);
            }
        }

        @Override
        public OutputStream getOutputStream() {
            throw new UnsupportedOperationException("a stored attachment is read only");
        }

        @Override
        public String getContentType() {
            return info.contentType();
        }

        @Override
        public String getName() {
            return info.filename();
        }
    }

    /**
     * @return the value RFC 2047-encoded where it is not ASCII, folded to lines of at most 76
     *         characters where it has spaces to fold at (RFC 5322 §2.2.3)
     */
    private static String encode(String name, String value) throws MessagingException {
        try {
            return MimeUtility.fold(name.length() + 2, MimeUtility.encodeText(value, "UTF-8", null));
        } catch (UnsupportedEncodingException e) {
            throw new MessagingException("cannot encode header " + name, e);
        }
    }

    /**
     * Rewrites each Reply-To, To and Cc address whose local part is not ASCII (RFC 6531) for a server without
     * SMTPUTF8, so that the header fields the other recipients get are ASCII: the address becomes an empty
     * group whose display name is the mailbox RFC 2047-encoded ({@code =?UTF-8?B?...?=:;}), the form RFC 6857
     * uses for downgraded address fields. The From field is not rewritten: a mail whose author needs SMTPUTF8
     * is not sent over such a server at all.
     *
     * @param message a composed message
     * @throws MessagingException when a header field cannot be read or encoded
     */
    static void downgrade(MimeMessage message) throws MessagingException {
        for (String field : List.of("Reply-To", "To", "Cc")) {
            String value = message.getHeader(field, ",");
            if (value == null || SmtpUtf8Gate.isAscii(value)) {
                continue;
            }
            StringJoiner rewritten = new StringJoiner(", ");
            for (InternetAddress address : InternetAddress.parseHeader(value, false)) {
                if (SmtpUtf8Gate.isAscii(address.getAddress())) {
                    rewritten.add(address.toString());
                } else {
                    try {
                        rewritten.add(MimeUtility.encodeWord(address.toUnicodeString(), "UTF-8", "B") + ":;");
                    } catch (UnsupportedEncodingException e) {
                        throw new MessagingException("cannot encode " + field, e);
                    }
                }
            }
            message.setHeader(field, MimeUtility.fold(field.length() + 2, rewritten.toString()));
        }
    }

    /** Sets an address field, folded (RFC 5322 §2.2.3); removes it for no address. */
    private static void header(MimeMessage message, String field, InternetAddress[] addresses) throws MessagingException {
        if (addresses == null) {
            message.removeHeader(field);
        } else {
            message.setHeader(field, InternetAddress.toString(addresses, field.length() + 2));
        }
    }

    /**
     * @param addresses bare addresses as stored (domains as A-labels)
     * @param names     the name of the address at a position, or null
     * @return the addresses with their names, or null for none
     */
    private static InternetAddress[] addresses(List<String> addresses, IntFunction<String> names)
            throws MessagingException {
        InternetAddress[] result = new InternetAddress[addresses.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = named(addresses.get(i), names.apply(i));
        }
        return result.length == 0 ? null : result;
    }

    /**
     * @return the address with its name, which {@link InternetAddress#toString()} writes RFC 2047-encoded
     *         (UTF-8) where it is not ASCII and quoted where it has specials such as a comma
     */
    private static InternetAddress named(String address, String name) throws MessagingException {
        try {
            return new InternetAddress(address, name, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new MessagingException("cannot encode the display name of " + address, e);
        }
    }
}
