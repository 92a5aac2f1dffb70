package dev.mailqueue.dispatch.control;

import jakarta.mail.Address;
import jakarta.mail.MessagingException;

/**
 * One account's way of handing a message to the server that delivers it on: an SMTP connection
 * ({@link SmtpConnection}) or the Amazon SES API ({@link SesRelay}); a new kind of account is a new implementation. A relay is
 * borrowed by one claimer at a time, kept open across its mails, and given back to its pool
 * ({@link SmtpConnections}). Not thread safe.
 */
interface Relay extends AutoCloseable {

    /** @return the name of the account the relay belongs to */
    String account();

    /**
     * Opens the relay unless it is open (for SMTP: connect, greeting, EHLO, STARTTLS and AUTH).
     *
     * @throws SmtpUnreachableException when that fails: the server has nothing of any mail
     */
    void open() throws SmtpUnreachableException;

    /** @return when the relay last handed a message over or was opened: an idle one is closed after a while */
    java.time.Instant lastUsed();

    /** @return true while the relay is open, as far as this side knows */
    boolean isOpen();

    /** @return true when addresses with non-ASCII local parts and UTF-8 header fields may be sent now (RFC 6531) */
    boolean offersSmtpUtf8();

    /**
     * Hands one message over for the given envelope recipients. The end of the message waits for the claimer's gate
     * ({@link GatedMessage#arm}); once the message's end went out the hand-over is never repeated here.
     *
     * @param message    a composed, armed message
     * @param recipients the envelope recipients, 1 or more
     * @return the server's reply to the end of the message, e.g. {@code 250 OK}
     * @throws SmtpUnreachableException when the relay could not be (re)opened: the server has nothing of the message
     * @throws MessagingException       when the server refused the message or some recipients
     *                                  ({@link jakarta.mail.SendFailedException}), the connection broke, or the
     *                                  claimer's gate did not open in time ({@link MarkNotRecordedException} among the
     *                                  causes)
     */
    SmtpReply send(GatedMessage message, Address[] recipients) throws MessagingException;

    /** Closes the relay; a later {@link #open()} opens it again. */
    @Override
    void close();
}
