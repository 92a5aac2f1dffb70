package dev.mailqueue.dispatch.control;

import dev.mailqueue.log.control.LogText;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;

import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One SMTP connection of an account's container mail session, opened once and reused for every mail a
 * claimer sends through it, and for later claimers when it goes back to the pool ({@link SmtpConnections}).
 * Host, port, credentials and the connect, read and write timeouts are the {@code <mailSession>}'s;
 * nothing here overrides them. Not thread safe: one claimer at a time.
 */
public class SmtpConnection implements Relay {

    private static final Logger LOG = Logger.getLogger(SmtpConnection.class.getName());

    private final String account;
    private final Session session;
    private final SmtpLogin login;
    private Transport transport;
    private Instant renewAt;
    private Instant lastUsed = Instant.now();

    /**
     * @param account the account's name
     * @param session its container-managed mail session, looked up, never built here
     */
    public SmtpConnection(String account, Session session) {
        this(account, session, SmtpLogin.PASSWORD);
    }

    /**
     * @param account the account's name
     * @param session its container-managed mail session, looked up, never built here
     * @param login   how it logs in: the session's password or an OAuth2 access token
     */
    SmtpConnection(String account, Session session, SmtpLogin login) {
        this.account = account;
        this.session = session;
        this.login = login;
    }

    /** @return the account this connection belongs to */
    @Override
    public String account() {
        return account;
    }

    /** @return when the connection was last used */
    @Override
    public Instant lastUsed() {
        return lastUsed;
    }

    /** @return true when a connection is open (as far as this side knows) */
    @Override
    public boolean isOpen() {
        return transport != null;
    }

    /**
     * Opens the connection unless it is open: connect, greeting, EHLO, STARTTLS and AUTH as the session
     * says, with the account's password or access token ({@link SmtpLogin}).
     *
     * @throws SmtpUnreachableException when that fails, or no access token could be had: no mail transaction began,
     *                                  the server has nothing
     */
    @Override
    public void open() throws SmtpUnreachableException {
        if (transport != null) {
            return;
        }
        try {
            SmtpLogin.Login opened = login.connect(session);
            transport = opened.transport();
            renewAt = opened.renewAt();
            lastUsed = Instant.now();
        } catch (MessagingException e) {
            throw new SmtpUnreachableException(e);
        }
    }

    /**
     * Whether this open connection can carry addresses with non-ASCII local parts (RFC 6531): the session
     * has {@code mail.mime.allowutf8=true} (then Angus Mail's SMTP transport sends its commands in UTF-8 and
     * adds the {@code SMTPUTF8} parameter to MAIL FROM when the server offers it) and the server's EHLO
     * answer lists {@code SMTPUTF8}. Angus Mail sends UTF-8 commands also to a server that does not offer
     * it (it only logs that), so the queue asks first. The transport's {@code supportsExtension} is public
     * on Angus Mail's {@code SMTPTransport} but its package is not API on Liberty, hence reflection; any
     * other transport counts as not offering SMTPUTF8.
     *
     * @return true when an SMTPUTF8 address may be sent through this connection now
     */
    @Override
    public boolean offersSmtpUtf8() {
        if (transport == null || !Boolean.parseBoolean(session.getProperty("mail.mime.allowutf8"))) {
            return false;
        }
        try {
            Object answer = transport.getClass().getMethod("supportsExtension", String.class).invoke(transport, "SMTPUTF8");
            return Boolean.TRUE.equals(answer);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(Level.FINE, "cannot ask the SMTP transport about SMTPUTF8", e);
            return false;
        }
    }

    /**
     * Sends one message to the given envelope recipients (RCPT TO). A connection that logged in with an OAuth2 token
     * now due for renewal is closed and opened again first, with a fresh token. When a connection that was open from
     * an earlier send fails without any reply before the message's DATA began (the server closed it while
     * it sat idle, or restarted), the message is sent once more over a new connection: the server has
     * nothing of it. Once DATA began, a failure is never retried here.
     *
     * @param message    a saved, armed message
     * @param recipients the envelope recipients, 1 or more; the headers are not changed
     * @return the server's reply to the end of DATA, e.g. {@code 250 OK}
     * @throws SmtpUnreachableException when (re)connecting fails: the server has nothing of the message
     * @throws MessagingException when the server refuses the sender, every recipient or the data, or the
     *                            connection breaks or times out, or the claimer's gate did not open
     *                            in time ({@link MarkNotRecordedException} in the causes); a
     *                            {@link jakarta.mail.SendFailedException} when it refused some recipients
     *                            (with {@code mail.smtp.sendpartial} the others were sent to)
     */
    @Override
    public SmtpReply send(GatedMessage message, Address[] recipients) throws MessagingException {
        if (transport != null && renewAt != null && !Instant.now().isBefore(renewAt)) {
            LOG.fine(() -> "SMTP connection of account " + account + " logs in again: its access token is due for renewal");
            close(); // between two mails, before the server may end a session whose token expired
        }
        boolean reused = transport != null;
        open();
        try {
            return sendOnce(message, recipients);
        } catch (MessagingException e) {
            if (reused && transport == null && !message.dataBegun() && SmtpReply.of(e).code() == null
                    && !MarkNotRecordedException.isCause(e)) {
                LOG.fine(() -> "SMTP connection of account " + account + " had gone stale (" + LogText.escape(e.getMessage())
                        + "); sending over a new one");
                open();
                return sendOnce(message, recipients);
            }
            throw e;
        }
    }

    private SmtpReply sendOnce(GatedMessage message, Address[] recipients) throws MessagingException {
        try {
            transport.sendMessage(message, recipients);
            lastUsed = Instant.now();
            return SmtpReply.lastOf(transport);
        } catch (MessagingException e) {
            lastUsed = Instant.now();
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
