package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.login.control.AccessTokens;
import dev.mailqueue.graph.control.GraphAccounts;
import dev.mailqueue.ses.control.SesClients;
import dev.mailqueue.account.control.RelayKind;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.mail.Session;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * This server's relays: it hands out an Amazon SES or Microsoft Graph account's relay ({@link SesRelay},
 * {@link GraphRelay}) and keeps the idle SMTP
 * connections, per account, so that a claimer that starts reuses the connection
 * an earlier one opened instead of connecting, greeting and authenticating again: a mail enqueued into
 * an idle queue leaves without a new TCP and TLS handshake. A connection idle for longer than
 * {@link #IDLE} is closed (QUIT), well inside the 5 minutes RFC 5321 §4.5.3.2.7 lets a server wait for
 * the next command; one that the server closed earlier is found out by the next send, which then
 * connects again ({@link SmtpConnection#send}). Thread safe.
 */
@ApplicationScoped
public class SmtpConnections {

    /** How long a connection may sit idle in the pool. */
    static final Duration IDLE = Duration.ofSeconds(30);

    @Inject
    AccountSessions sessions;

    @Inject
    AccessTokens tokens;

    @Inject
    SesClients ses;

    @Inject
    GraphAccounts graph;

    private final Map<String, Deque<Relay>> idle = new HashMap<>();
    private Function<Account, Session> lookup;

    /**
     * @param sessions the mail session of each account (in tests, sessions of test servers)
     * @return a pool outside a container
     */
    public static SmtpConnections of(Function<Account, Session> sessions) {
        return of(sessions, null);
    }

    /**
     * @param sessions the mail session of each account (in tests, sessions of test servers)
     * @param tokens   the access tokens of the OAuth2 accounts; null when every account logs in with a password
     * @return a pool outside a container
     */
    public static SmtpConnections of(Function<Account, Session> sessions, AccessTokens tokens) {
        SmtpConnections pool = new SmtpConnections();
        pool.lookup = sessions;
        pool.tokens = tokens;
        return pool;
    }

    /**
     * @param account an account
     * @return an idle connection of it, most recently used first, or a new (not yet opened) one; for an Amazon SES or
     *         Microsoft Graph account a relay over its shared HTTP client ({@link SesRelay}, {@link GraphRelay}), never
     *         pooled here
     */
    public Relay borrow(Account account) {
        if (account.relay() == RelayKind.SES) {
            return new SesRelay(account.name(), ses.settings(account.name()).orElseThrow(), ses.client(account.name()));
        }
        if (account.relay() == RelayKind.GRAPH) {
            return new GraphRelay(account.name(), graph.settings(account.name()).orElseThrow(), graph.client(), tokens);
        }
        synchronized (idle) {
            Deque<Relay> pool = idle.get(account.name());
            if (pool != null && !pool.isEmpty()) {
                return pool.pollFirst();
            }
        }
        Session session = lookup != null ? lookup.apply(account) : sessions.of(account);
        return new SmtpConnection(account.name(), session, tokens != null && tokens.usesOAuth2(account.name())
                ? SmtpLogin.oauth2(account.name(), tokens) : SmtpLogin.PASSWORD);
    }

    /** @param connection a borrowed relay, open or not; closed ones are simply dropped */
    public void giveBack(Relay connection) {
        if (!connection.isOpen()) {
            return;
        }
        synchronized (idle) {
            idle.computeIfAbsent(connection.account(), a -> new ArrayDeque<>()).addFirst(connection);
        }
    }

    /** Closes the connections idle for longer than {@link #IDLE}; called by the dispatch timer. */
    public void closeIdle() {
        Instant limit = Instant.now().minus(IDLE);
        List<Relay> stale = new ArrayList<>();
        synchronized (idle) {
            for (Deque<Relay> pool : idle.values()) {
                pool.removeIf(c -> c.lastUsed().isBefore(limit) && stale.add(c));
            }
        }
        stale.forEach(Relay::close);
    }

    @PreDestroy
    void closeAll() {
        List<Relay> all = new ArrayList<>();
        synchronized (idle) {
            idle.values().forEach(all::addAll);
            idle.clear();
        }
        all.forEach(Relay::close);
    }
}
