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
        this("SMTP server unreachable: ", cause);
    }

    /**
     * @param what  what could not be reached, in front of the cause's message, e.g. {@code "Amazon SES unreachable: "}
     * @param cause what connecting threw, or the API's refusal of the account
     */
    public SmtpUnreachableException(String what, MessagingException cause) {
        super(what + cause.getMessage(), cause);
    }
}
