package dev.mailqueue.submission.control;

import org.subethamail.smtp.server.Session;
import org.subethamail.smtp.server.SessionHandler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the listener knows of each open SMTP session: who logged in, and how many messages it began. It also
 * limits the sessions of one client address at once (SubEthaSMTP's limiter), and forgets a session when it
 * ends, so nothing of it outlives its connection.
 */
public final class SubmissionSessions implements SessionHandler {

    /**
     * A login the queue's API took.
     *
     * @param user     the user name
     * @param password its password, kept only while the session lives, to hand each message over as this user
     */
    public record Login(String user, String password) {

        @Override
        public String toString() {
            return "Login[" + user + "]"; // never the password
        }
    }

    private final SessionHandler perAddress;
    private final Map<String, Login> logins = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> messages = new ConcurrentHashMap<>();

    /** @param maxPerAddress sessions at once from one client address, 1 or more */
    public SubmissionSessions(int maxPerAddress) {
        this.perAddress = SessionHandler.limitConcurrentSessionsBySource(maxPerAddress);
    }

    @Override
    public SessionAcceptance accept(Session session) {
        return perAddress.accept(session);
    }

    @Override
    public void onSessionEnd(Session session) {
        logins.remove(session.getSessionId());
        messages.remove(session.getSessionId());
        perAddress.onSessionEnd(session);
    }

    void loggedIn(String sessionId, Login login) {
        logins.put(sessionId, login);
    }

    /** @return the session's login, or null before AUTH */
    Login login(String sessionId) {
        return logins.get(sessionId);
    }

    /**
     * @param max the messages a session may begin
     * @return false when the session has begun {@code max} already: this one is refused
     */
    boolean beginMessage(String sessionId, int max) {
        return messages.computeIfAbsent(sessionId, id -> new AtomicInteger()).incrementAndGet() <= max;
    }
}
