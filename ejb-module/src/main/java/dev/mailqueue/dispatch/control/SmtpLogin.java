package dev.mailqueue.dispatch.control;

import dev.mailqueue.login.control.AccessTokens;
import dev.mailqueue.login.control.IssuedToken;
import dev.mailqueue.login.control.TokenException;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;

/**
 * How an SMTP connection of an account logs in: with the user and password of its container mail session, or
 * with SASL {@code XOAUTH2} (Google's and Microsoft's SMTP OAuth2 mechanism, which Angus Mail speaks when the
 * session sets {@code mail.smtp.auth.mechanisms=XOAUTH2}), the account's access token given as the password.
 */
@FunctionalInterface
interface SmtpLogin {

    /** The session's own credentials (or none), as {@code <mailSession>} configures them: a login that never ages. */
    SmtpLogin PASSWORD = session -> {
        Transport transport = session.getTransport();
        transport.connect();
        return new Login(transport, null);
    };

    /**
     * @param session the account's container mail session
     * @return a connected transport (greeted, EHLO, STARTTLS and AUTH done as the session and login say), and when
     *         it should log in again
     * @throws MessagingException when connecting or logging in failed, or no token could be had; the server has
     *                            nothing of any mail
     */
    Login connect(Session session) throws MessagingException;

    /**
     * A connection as logged in.
     *
     * @param transport the connected transport
     * @param renewAt   when the connection should be closed and opened again between two mails, so that it never
     *                  outlives the token it logged in with (a server may end such a session, and one ended in the
     *                  middle of a DATA leaves a mail in doubt): the token's renewal time; null for a password login
     */
    record Login(Transport transport, java.time.Instant renewAt) {
    }

    /**
     * @param account the account's name
     * @param tokens  its access tokens
     * @return a login with the account's access token as the XOAUTH2 password and the session's {@code mail.smtp.user}
     *         (else {@code mail.user}) as the user; a token the server refuses ({@link AuthenticationFailedException},
     *         SMTP {@code 535}, RFC 4954 §6; Angus Mail reports a refused XOAUTH2 login by the server's {@code 334} error
     *         challenge) is replaced by a new one and the login tried once more, so that a token revoked before its
     *         expiry costs one renewal, not the account
     */
    static SmtpLogin oauth2(String account, AccessTokens tokens) {
        return session -> {
            String user = session.getProperty("mail.smtp.user");
            if (user == null) {
                user = session.getProperty("mail.user");
            }
            if (user == null) {
                throw new MessagingException("the mail session of account " + account + " names no user (property"
                        + " mail.smtp.user): XOAUTH2 logs in as the mailbox that sends");
            }
            IssuedToken token = token(account, tokens);
            Transport transport = session.getTransport();
            try {
                transport.connect(user, token.value());
            } catch (AuthenticationFailedException refused) {
                tokens.refused(account, token);
                token = token(account, tokens);
                transport = session.getTransport();
                try {
                    transport.connect(user, token.value());
                } catch (AuthenticationFailedException again) {
                    throw new AuthenticationFailedException("the server refused the OAuth2 access token of account "
                            + account + " as " + user + ", and a new one too: " + again.getMessage(), again);
                }
            }
            return new Login(transport, tokens.renewAt(token));
        };
    }

    private static IssuedToken token(String account, AccessTokens tokens) throws MessagingException {
        try {
            return tokens.token(account);
        } catch (TokenException e) {
            throw new MessagingException(e.getMessage(), e);
        }
    }
}
