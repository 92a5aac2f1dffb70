package dev.mailqueue.submission.control;

import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.auth.LoginFailedException;
import org.subethamail.smtp.auth.UsernamePasswordValidator;
import org.subethamail.smtp.server.Session;

import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Checks the user name and password of SMTP AUTH PLAIN and LOGIN (RFC 4954, RFC 4616) against the queue's users
 * through its API ({@link QueueApiClient#mayEnqueue}): the same users, passwords and roles as REST. A password is
 * taken only over TLS (RFC 4954 §4: a plaintext mechanism needs an encrypted session), or from a loopback address
 * when {@code mailqueue.submission.auth-on-loopback-without-tls} allows it. Every failure is SMTP's 535 (SubEthaSMTP
 * answers each {@link LoginFailedException} so), also when the API could not be reached, which is logged.
 */
public final class SubmissionLogin implements UsernamePasswordValidator {

    private static final Logger LOG = Logger.getLogger(SubmissionLogin.class.getName());

    private final QueueApiClient api;
    private final SubmissionSessions sessions;
    private final boolean loopbackWithoutTls;

    /**
     * @param api                the queue's API
     * @param sessions           where a login is kept for its session
     * @param loopbackWithoutTls whether a client on a loopback address may log in without TLS
     */
    public SubmissionLogin(QueueApiClient api, SubmissionSessions sessions, boolean loopbackWithoutTls) {
        this.api = api;
        this.sessions = sessions;
        this.loopbackWithoutTls = loopbackWithoutTls;
    }

    @Override
    public void login(String user, String password, MessageContext context) throws LoginFailedException {
        boolean tls = context instanceof Session session && session.isTLSStarted();
        if (!SubmissionAuthentication.mayAuthenticate(tls, context.getRemoteAddress(), loopbackWithoutTls)) {
            throw new LoginFailedException("authentication needs STARTTLS first");
        }
        boolean allowed;
        try {
            allowed = api.mayEnqueue(user, password);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "SMTP submission: could not check a login with the queue's API", e);
            throw new LoginFailedException("the login cannot be checked now");
        }
        if (!allowed) {
            throw new LoginFailedException();
        }
        sessions.loggedIn(context.getSessionId(), new SubmissionSessions.Login(user, password));
    }
}
