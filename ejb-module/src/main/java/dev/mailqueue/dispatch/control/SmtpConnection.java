package dev.mailqueue.dispatch.control;

import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.MimeMessage;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One SMTP connection of the container's mail session, opened on first use and reused for every mail
 * a claimer sends; reopened on the next mail after it broke. Host, port, credentials and the connect,
 * read and write timeouts are the {@code <mailSession>}'s; nothing here overrides them. Not thread
 * safe: one per claimer.
 */
public class SmtpConnection implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(SmtpConnection.class.getName());

    private final Session session;
    private Transport transport;

    /** @param session the container-managed mail session, looked up, never built here */
    public SmtpConnection(Session session) {
        this.session = session;
    }

    /**
     * Sends one message to all its recipients (to, cc and bcc) over the open connection.
     *
     * @see #send(MimeMessage, Address[])
     */
    public SmtpReply send(MimeMessage message) throws MessagingException {
        return send(message, message.getAllRecipients());
    }

    /**
     * Sends one message to the given envelope recipients (RCPT TO) over the open connection. When a
     * connection that was open from an earlier send fails without any SMTP reply (the server closed it
     * while it sat idle, or restarted), the message is sent once more over a new connection, so a stale
     * connection does not cost the mail an attempt.
     *
     * @param message    a saved message
     * @param recipients the envelope recipients, 1 or more; the headers are not changed
     * @return the server's reply to the end of DATA, e.g. {@code 250 OK}
     * @throws SmtpUnreachableException when connecting fails: the server has nothing of the message
     * @throws MessagingException when the server refuses the sender, every recipient or the data, or
     *                            the connection breaks or times out; a
     *                            {@link jakarta.mail.SendFailedException} when it refused some recipients
     *                            (with {@code mail.smtp.sendpartial} the others were sent to), listing
     *                            which were sent to, refused, and valid but not sent to
     */
    public SmtpReply send(MimeMessage message, Address[] recipients) throws MessagingException {
        boolean reused = transport != null;
        try {
            return sendOnce(message, recipients);
        } catch (MessagingException e) {
            if (reused && transport == null && SmtpReply.of(e).code() == null) {
                LOG.fine(() -> "SMTP connection had gone stale (" + e.getMessage() + "); sending over a new one");
                return sendOnce(message, recipients);
            }
            throw e;
        }
    }

    private SmtpReply sendOnce(MimeMessage message, Address[] recipients) throws MessagingException {
        if (transport == null) {
            Transport opened = session.getTransport();
            try {
                opened.connect();
            } catch (MessagingException e) {
                throw new SmtpUnreachableException(e);
            }
            transport = opened;
        }
        try {
            transport.sendMessage(message, recipients);
            return SmtpReply.lastOf(transport);
        } catch (MessagingException e) {
            if (!transport.isConnected()) {
                close();
            }
            throw e;
        }
    }

    /** Closes the connection (QUIT) if one is open; a later send opens a new one. */
    @Override
    public void close() {
        if (transport != null) {
            try {
                transport.close();
            } catch (MessagingException e) {
                LOG.log(Level.FINE, "SMTP connection did not close cleanly", e);
            }
            transport = null;
        }
    }
}
