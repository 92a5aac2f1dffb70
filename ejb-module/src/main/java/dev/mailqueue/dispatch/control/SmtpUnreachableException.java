package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;

/**
 * Opening the SMTP connection failed (connection refused or timed out, no or a refusing greeting, EHLO,
 * STARTTLS or AUTH failed): no mail transaction began, so the server has nothing of the message, and
 * the mail may go through another account at once. The provider's exception is the next exception,
 * so {@link SmtpReply#of} still finds a reply code if one came.
 */
public class SmtpUnreachableException extends MessagingException {

    private static final long serialVersionUID = 1L;

    /** @param cause what connecting threw */
    public SmtpUnreachableException(MessagingException cause) {
        super("SMTP server unreachable: " + cause.getMessage(), cause);
    }
}
