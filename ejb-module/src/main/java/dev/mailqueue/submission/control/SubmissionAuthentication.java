package dev.mailqueue.submission.control;

import org.subethamail.smtp.AuthenticationHandler;
import org.subethamail.smtp.AuthenticationHandlerFactory;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.Session;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * SMTP AUTH (RFC 4954) with the listener's defences around SubEthaSMTP's PLAIN and LOGIN:
 * <ul>
 *   <li>AUTH is offered (EHLO) and taken only where a password may travel: over TLS, or from a loopback address
 *       when {@code auth-on-loopback-without-tls} allows it; to any other client in clear EHLO lists no AUTH and
 *       AUTH is answered 504. SubEthaSMTP decides this for the whole server; here it is decided per client.</li>
 *   <li>{@code maxFailures} failed attempts on one connection: the last one's reply is followed by
 *       {@code 421 4.7.0} and the connection is closed.</li>
 *   <li>per client address, {@link AddressLockout}: while an address is locked out, every AUTH from it waits
 *       {@code lockoutDelayMillis} and is answered {@code 454 4.7.0} without its password being checked.</li>
 * </ul>
 */
public final class SubmissionAuthentication implements AuthenticationHandlerFactory {

    private final AuthenticationHandlerFactory mechanisms;
    private final SubmissionSessions sessions;
    private final AddressLockout lockout;
    private final boolean loopbackWithoutTls;
    private final int maxFailures;
    private final long lockoutDelayMillis;

    /**
     * @param mechanisms         the mechanisms that check the password
     * @param sessions           the sessions, where failures per connection are counted
     * @param lockout            failures and lockouts per client address
     * @param loopbackWithoutTls whether a client on a loopback address may log in without TLS
     * @param maxFailures        failed attempts on one connection before it is closed, 1 or more
     * @param lockoutDelayMillis how long an AUTH of a locked-out address waits before its refusal, ms
     */
    public SubmissionAuthentication(AuthenticationHandlerFactory mechanisms, SubmissionSessions sessions,
                                    AddressLockout lockout, boolean loopbackWithoutTls, int maxFailures,
                                    long lockoutDelayMillis) {
        this.mechanisms = mechanisms;
        this.sessions = sessions;
        this.lockout = lockout;
        this.loopbackWithoutTls = loopbackWithoutTls;
        this.maxFailures = maxFailures;
        this.lockoutDelayMillis = lockoutDelayMillis;
    }

    /**
     * @return the mechanisms, or none for a client that may not send a password on this connection (in clear,
     *         not on loopback): EHLO then lists no AUTH, and AUTH is refused
     */
    @Override
    public List<String> getAuthenticationMechanisms() {
        Session session = SubmissionSessions.current();
        return session != null && mayAuthenticate(session.isTLSStarted(), session.getRemoteAddress(), loopbackWithoutTls)
                ? mechanisms.getAuthenticationMechanisms() : List.of();
    }

    /**
     * @return whether a client may send a password: over TLS, or in clear from a loopback address when allowed
     */
    static boolean mayAuthenticate(boolean tls, SocketAddress client, boolean loopbackWithoutTls) {
        return tls || loopbackWithoutTls && address(client) != null && address(client).isLoopbackAddress();
    }

    @Override
    public AuthenticationHandler create() {
        AuthenticationHandler checked = mechanisms.create();
        return new AuthenticationHandler() {
            @Override
            public Optional<String> auth(String clientInput, MessageContext context) throws RejectException {
                InetAddress client = address(context.getRemoteAddress());
                if (client != null && lockout.locked(client)) {
                    pause();
                    throw failed(context, SubmissionReplies.reject(454, "4.7.0",
                            "too many failed logins from your address; try again later"));
                }
                try {
                    return checked.auth(clientInput, context);
                } catch (RejectException refused) {
                    if (refused.getCode() == 535 && client != null) {
                        lockout.failed(client);
                    }
                    throw failed(context, refused);
                }
            }

            @Override
            public Object getIdentity() {
                return checked.getIdentity();
            }
        };
    }

    /**
     * Counts a failed attempt on the connection. At the cap, answers it and {@code 421 4.7.0} here and closes the
     * connection: SubEthaSMTP answers a refused AUTH but never closes after it (a {@code DropConnectionException}
     * is a {@code RejectException} there and only answered), so the reply it still writes goes nowhere.
     *
     * @return the refusal, to throw
     */
    private RejectException failed(MessageContext context, RejectException refusal) {
        if (context instanceof Session session && sessions.authFailed(session.getSessionId()) >= maxFailures) {
            SubmissionSessions.close(session, refusal.getErrorResponse() + "\r\n421 4.7.0 too many failed logins on"
                    + " this connection; closing");
        }
        return refusal;
    }

    private void pause() {
        try {
            Thread.sleep(lockoutDelayMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static InetAddress address(SocketAddress client) {
        return client instanceof InetSocketAddress socket ? socket.getAddress() : null;
    }
}
