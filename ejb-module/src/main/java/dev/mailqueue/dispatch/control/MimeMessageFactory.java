package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailAttachment;
import dev.mailqueue.mail.entity.MailHeader;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.activation.DataHandler;
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
import jakarta.mail.util.ByteArrayDataSource;

import java.io.UnsupportedEncodingException;
import java.util.Date;
import java.util.List;

/**
 * Builds the MIME message of a queued mail: From with display name, Reply-To, To, Cc, Bcc (envelope
 * only: Jakarta Mail leaves Bcc out of the headers it sends), Subject, Date (the enqueue time), the
 * stable Message-ID, the custom header fields, and a text, an HTML, or a multipart/alternative body,
 * all in UTF-8. With attachments the message is multipart/mixed (RFC 2046 §5.1.3): the body first,
 * then one part per file with Content-Disposition attachment and its file name (RFC 2183; non-ASCII
 * names RFC 2231-encoded).
 */
public final class MimeMessageFactory {

    private MimeMessageFactory() {
    }

    /**
     * @param session the container's mail session; supplies MIME settings only
     * @param mail    the row to send
     * @return the message with its headers saved
     * @throws MessagingException when a stored address or header cannot be encoded
     */
    public static MimeMessage compose(Session session, MailMessage mail) throws MessagingException {
        MimeMessage message = new StableIdMimeMessage(session, mail.getMessageId());
        try {
            message.setFrom(new InternetAddress(mail.getFromAddress(), mail.getFromName(), "UTF-8"));
        } catch (UnsupportedEncodingException e) {
            throw new MessagingException("cannot encode the sender's display name", e);
        }
        if (mail.getReplyTo() != null) {
            message.setReplyTo(new InternetAddress[]{new InternetAddress(mail.getReplyTo(), true)});
        }
        message.setRecipients(RecipientType.TO, addresses(mail.getTo()));
        message.setRecipients(RecipientType.CC, addresses(mail.getCc()));
        message.setRecipients(RecipientType.BCC, addresses(mail.getBcc()));
        message.setSubject(mail.getSubject() == null ? "" : mail.getSubject(), "UTF-8");
        message.setSentDate(Date.from(Utc.toInstant(mail.getCreatedAt())));
        for (MailHeader header : mail.getHeaders()) {
            message.addHeader(header.getName(), encode(header.getName(), header.getValue()));
        }
        if (mail.getAttachments().isEmpty()) {
            body(message, mail);
        } else {
            MimeBodyPart body = new MimeBodyPart();
            body(body, mail);
            MimeMultipart mixed = new MimeMultipart("mixed", body);
            for (MailAttachment attachment : mail.getAttachments()) {
                mixed.addBodyPart(attachmentPart(attachment));
            }
            message.setContent(mixed);
        }
        message.saveChanges();
        return message;
    }

    /** Sets the text, HTML or multipart/alternative body on the message or on the first part of a mixed one. */
    private static void body(MimePart part, MailMessage mail) throws MessagingException {
        String text = mail.getTextBody();
        String html = mail.getHtmlBody();
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

    private static MimeBodyPart attachmentPart(MailAttachment attachment) throws MessagingException {
        MimeBodyPart part = new MimeBodyPart();
        part.setDataHandler(new DataHandler(new ByteArrayDataSource(attachment.getContent(), attachment.getContentType())));
        part.setDisposition(Part.ATTACHMENT);
        part.setFileName(attachment.getFilename());
        return part;
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
