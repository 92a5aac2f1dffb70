package dev.mailqueue.submission.control;

import org.subethamail.smtp.server.Session;
import org.subethamail.smtp.server.SessionHandler;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * What the listener knows of each open SMTP session: who logged in, how many messages it began and how many
 * logins failed on it. It also decides whether a connection is served at all: no more than
 * {@code maxConnections} at once ({@code 421 4.3.2} past that, logged once each time the listener becomes full,
 * not per connection) and no more than {@code maxPerAddress} from one client address (SubEthaSMTP's limiter).
 * Each served session has two deadlines, counted from its connection: without a login by {@code authDeadline} it
 * is answered {@code 421 4.7.0} and closed, and whatever it does it is answered {@code 421 4.4.2} and closed at
 * {@code sessionDeadline}; the idle timeout alone would let a client that keeps talking stay for ever. A session
 * is forgotten when it ends, so nothing of it outlives its connection.
 */
public final class SubmissionSessions implements SessionHandler {

    private static final Logger LOG = Logger.getLogger(SubmissionSessions.class.getName());

    /** The session whose commands the current thread runs (set by {@link SessionPool}), or none. */
    private static final ThreadLocal<Session> CURRENT = new ThreadLocal<>();

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

    private final int maxConnections;
    private final SessionHandler perAddress;
    private final ScheduledExecutorService timers;
    private final long authDeadlineMillis;
    private final long sessionDeadlineMillis;
    private final Runnable refusedCounter;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicBoolean full = new AtomicBoolean();
    private final Map<String, Login> logins = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> messages = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> authFailures = new ConcurrentHashMap<>();
    private final Map<String, ScheduledFuture<?>> deadlines = new ConcurrentHashMap<>();

    /**
     * @param maxConnections        sessions served at once, 1 or more
     * @param maxPerAddress         sessions at once from one client address, 1 or more
     * @param timers                runs the deadlines
     * @param authDeadlineMillis    how long a session may go without a login, ms
     * @param sessionDeadlineMillis how long a session may last, ms, at least {@code authDeadlineMillis}
     * @param refusedCounter        counts a connection refused because the listener is full
     */
    public SubmissionSessions(int maxConnections, int maxPerAddress, ScheduledExecutorService timers,
                              long authDeadlineMillis, long sessionDeadlineMillis, Runnable refusedCounter) {
        this.maxConnections = maxConnections;
        this.perAddress = SessionHandler.limitConcurrentSessionsBySource(maxPerAddress);
        this.timers = timers;
        this.authDeadlineMillis = authDeadlineMillis;
        this.sessionDeadlineMillis = sessionDeadlineMillis;
        this.refusedCounter = refusedCounter;
    }

    /** @return the session the current thread serves, or null on any other thread */
    static Session current() {
        return CURRENT.get();
    }

    static void serving(Session session) {
        if (session == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(session);
        }
    }

    @Override
    public SessionAcceptance accept(Session session) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            refusedCounter.run();
            if (full.compareAndSet(false, true)) {
                LOG.warning(() -> "SMTP submission: " + maxConnections + " connections open"
                        + " (mailqueue.submission.max-connections); further clients are answered 421 4.3.2 until one"
                        + " ends (logged once until there is room again)");
            }
            return SessionAcceptance.failure(421, "4.3.2 too many connections; try again later");
        }
        SessionAcceptance byAddress = perAddress.accept(session);
        if (!byAddress.accepted()) {
            open.decrementAndGet();
            return byAddress;
        }
        String id = session.getSessionId();
        deadlines.put(id, timers.schedule(() -> authDeadline(session), authDeadlineMillis, TimeUnit.MILLISECONDS));
        return byAddress;
    }

    @Override
    public void onSessionEnd(Session session) {
        String id = session.getSessionId();
        ScheduledFuture<?> deadline = deadlines.remove(id);
        if (deadline != null) {
            deadline.cancel(false);
        }
        logins.remove(id);
        messages.remove(id);
        authFailures.remove(id);
        perAddress.onSessionEnd(session);
        if (open.decrementAndGet() < maxConnections) {
            full.set(false);
        }
    }

    private void authDeadline(Session session) {
        String id = session.getSessionId();
        if (!deadlines.containsKey(id)) {
            return; // ended meanwhile
        }
        if (logins.get(id) == null) {
            close(session, "421 4.7.0 no login within " + authDeadlineMillis / 1000 + " s; closing");
            return;
        }
        deadlines.put(id, timers.schedule(() -> sessionDeadline(session), sessionDeadlineMillis - authDeadlineMillis,
                TimeUnit.MILLISECONDS));
    }

    private void sessionDeadline(Session session) {
        if (deadlines.containsKey(session.getSessionId())) {
            close(session, "421 4.4.2 connection open longer than " + sessionDeadlineMillis / 1000
                    + " s; closing: connect again");
        }
    }

    /**
     * Answers and closes a session from outside its thread: the reply is one whole line (SubEthaSMTP writes each
     * reply with one call on its writer, so lines do not mix), then the socket is closed, which ends the session's
     * blocked read; the session ends as after any closed connection.
     */
    static void close(Session session, String reply) {
        try {
            session.sendResponse(reply);
        } catch (IOException | RuntimeException e) {
            // the client went away first: closing is all that is left
        }
        session.quit();
    }

    void loggedIn(String sessionId, Login login) {
        logins.put(sessionId, login);
    }

    /** @return the session's login, or null before AUTH */
    Login login(String sessionId) {
        return logins.get(sessionId);
    }

    /** @return the failed AUTH attempts of the session so far, this one included */
    int authFailed(String sessionId) {
        return authFailures.computeIfAbsent(sessionId, id -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * @param max the messages a session may begin
     * @return false when the session has begun {@code max} already: this one is refused
     */
    boolean beginMessage(String sessionId, int max) {
        return messages.computeIfAbsent(sessionId, id -> new AtomicInteger()).incrementAndGet() <= max;
    }

    /** @return sessions served now */
    int open() {
        return open.get();
    }
}
