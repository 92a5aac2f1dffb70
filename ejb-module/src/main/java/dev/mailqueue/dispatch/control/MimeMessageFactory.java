package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;

import java.io.UnsupportedEncodingException;
import java.util.Date;
import java.util.List;

/**
 * Builds the MIME message of a queued mail: From with display name, Reply-To, To, Cc, Bcc (envelope
 * only: Jakarta Mail leaves Bcc out of the headers it sends), Subject, Date (the enqueue time), the
 * stable Message-ID, and a text, an HTML, or a multipart/alternative body, all in UTF-8.
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
        String text = mail.getTextBody();
        String html = mail.getHtmlBody();
        if (text != null && html != null) {
            MimeBodyPart textPart = new MimeBodyPart();
            textPart.setText(text, "UTF-8");
            MimeBodyPart htmlPart = new MimeBodyPart();
            htmlPart.setText(html, "UTF-8", "html");
            message.setContent(new MimeMultipart("alternative", textPart, htmlPart));
        } else if (html != null) {
            message.setText(html, "UTF-8", "html");
        } else {
            message.setText(text == null ? "" : text, "UTF-8");
        }
        message.saveChanges();
        return message;
    }

    private static InternetAddress[] addresses(List<String> list) throws MessagingException {
        InternetAddress[] result = new InternetAddress[list.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = new InternetAddress(list.get(i), true);
        }
        return result.length == 0 ? null : result;
    }
}
