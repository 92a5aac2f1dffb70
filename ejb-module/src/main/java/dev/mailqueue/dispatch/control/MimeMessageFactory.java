package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.NewMail;
import jakarta.activation.DataHandler;
import jakarta.activation.DataSource;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.MessagingException;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.internet.MimePart;
import jakarta.mail.internet.MimeUtility;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.util.Date;
import java.util.List;

/**
 * Builds the MIME message of a queued mail: From with display name, Reply-To, To, Cc, Bcc (envelope
 * only: Jakarta Mail leaves Bcc out of the headers it sends), Subject, Date (the enqueue time), the
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

    /**
     * @param session     the container's mail session; supplies MIME settings only
     * @param mail        the claimed mail
     * @param body        its bodies
     * @param attachments where its attachments' bytes are read from, during DATA
     * @return the message with its headers saved
     * @throws MessagingException when a stored address or header cannot be encoded
     */
    static GatedMessage compose(Session session, ClaimedMail mail, ClaimedMail.Body body, AttachmentReader attachments)
            throws MessagingException {
        GatedMessage message = new GatedMessage(session, mail.messageId());
        try {
            message.setFrom(new InternetAddress(mail.from(), mail.fromName(), "UTF-8"));
        } catch (UnsupportedEncodingException e) {
            throw new MessagingException("cannot encode the sender's display name", e);
        }
        if (mail.replyTo() != null) {
            message.setReplyTo(new InternetAddress[]{new InternetAddress(mail.replyTo(), true)});
        }
        message.setRecipients(RecipientType.TO, addresses(mail.to()));
        message.setRecipients(RecipientType.CC, addresses(mail.cc()));
        message.setRecipients(RecipientType.BCC, addresses(mail.bcc()));
        message.setSubject(mail.subject() == null ? "" : mail.subject(), "UTF-8");
        message.setSentDate(Date.from(mail.createdAt()));
        for (NewMail.Header header : mail.headers()) {
            message.addHeader(header.name(), encode(header.name(), header.value()));
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

    /** Sets the text, HTML or multipart/alternative body on the message or on the first part of a mixed one. */
    private static void body(MimePart part, ClaimedMail.Body body) throws MessagingException {
        String text = body.text();
        String html = body.html();
        if (text != null && html != null) {
            MimeBodyPart textPart = new MimeBodyPart();
            textPart.setText(text, "UTF-8");
            MimeBodyPart htmlPart = new MimeBodyPart();
            htmlPart.setText(html, "UTF-8", "html");
            part.setContent(new MimeMultipart("alternative", textPart, htmlPart));
        } else if (html != null) {
            part.setText(html, "UTF-8", "html");
        } else {
            part.setText(text == null ? "" : text, "UTF-8");
        }
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

    private static InternetAddress[] addresses(List<String> list) throws MessagingException {
        InternetAddress[] result = new InternetAddress[list.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = new InternetAddress(list.get(i), true);
        }
        return result.length == 0 ? null : result;
    }
}
