package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;

/**
 * A MIME message that keeps the Message-ID assigned at enqueue. {@link MimeMessage#saveChanges()}
 * would otherwise write a new one on every attempt, and receivers could not recognise a resend.
 */
class StableIdMimeMessage extends MimeMessage {

    private final String messageId;

    StableIdMimeMessage(Session session, String messageId) {
        super(session);
        this.messageId = messageId;
    }

    @Override
    protected void updateMessageID() throws MessagingException {
        setHeader("Message-ID", messageId);
    }
}
