package dev.mailqueue.login.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * This server's access token of each OAuth2 account: requested when first needed, kept while fresh, renewed ahead
 * of its expiry ({@link IssuedToken#renewAt}) by one claimer while the others go on with the token in hand, and
 * renewed at once after the relay refused it ({@link #refused}). When the authorization server cannot give one,
 * the account counts as unreachable (its mail waits, attempts untouched) and the error is kept for the console and
 * readiness. Thread safe.
 */
@ApplicationScoped
public class AccessTokens {

    /** How long a failed token request is answered from memory before the server is asked again. */
    static final Duration FAILURE_HOLD = Duration.ofSeconds(2);

    private static final Logger LOG = Logger.getLogger(AccessTokens.class.getName());

    @Inject
    Accounts accounts;

    private Map<String, OAuth2Grant> grants = Map.of();
    private Duration renewBefore;
    private TokenEndpoint endpoint;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    @PostConstruct
    void read() {
        Settings settings = Settings.fromConfig(AccessTokens.class);
        Function<String, Optional<String>> source = settings::optional;
        List<String> names = accounts.all().stream().map(Account::name).toList();
        use(LoginSettings.parse(source, names), LoginSettings.renewBefore(source),
                new TokenEndpoint(LoginSettings.timeout(source)));
    }

    /**
     * @param grants      the OAuth2 grant of each OAuth2 account ({@link LoginSettings#parse})
     * @param renewBefore the renewal margin
     * @param endpoint    how tokens are requested
     * @return the tokens outside a container, e.g. in tests
     */
    public static AccessTokens of(Map<String, OAuth2Grant> grants, Duration renewBefore, TokenEndpoint endpoint) {
        AccessTokens tokens = new AccessTokens();
        tokens.use(grants, renewBefore, endpoint);
        return tokens;
    }

    private void use(Map<String, OAuth2Grant> grants, Duration renewBefore, TokenEndpoint endpoint) {
        this.grants = Map.copyOf(grants);
        this.renewBefore = renewBefore;
        this.endpoint = endpoint;
    }

    /**
     * @param account an account's name
     * @return true when it logs in with an OAuth2 access token, false when with its session's password
     */
    public boolean usesOAuth2(String account) {
        return grants.containsKey(account);
    }

    /**
     * @param token a token {@link #token} gave
     * @return when it should no longer be used for a new login or session: its renewal time ({@link IssuedToken#renewAt})
     */
    public Instant renewAt(IssuedToken token) {
        return token.renewAt(renewBefore);
    }

    /**
     * @param account an OAuth2 account ({@link #usesOAuth2})
     * @return a token that has not reached its renewal time, or, while another caller renews it, the one in hand
     *         until it expires
     * @throws TokenException           when no unexpired token is in hand and the authorization server gave none
     *                                  (the message names the grant and the server's error)
     * @throws IllegalArgumentException when the account does not use OAuth2
     */
    public IssuedToken token(String account) throws TokenException {
        return entry(account).token();
    }

    /**
     * The relay refused the token (SMTP {@code 535}, RFC 4954 §6): the next {@link #token} asks for a new one unless
     * another caller already did.
     *
     * @param account an OAuth2 account
     * @param token   the token the relay refused
     */
    public void refused(String account, IssuedToken token) {
        entry(account).refused(token);
    }

    /**
     * @param account an account's name
     * @return its login state on this server; empty for a password account
     */
    public Optional<LoginState> state(String account) {
        OAuth2Grant grant = grants.get(account);
        return grant == null ? Optional.empty() : Optional.of(entry(account).state());
    }

    private Entry entry(String account) {
        OAuth2Grant grant = grants.get(account);
        if (grant == null) {
            throw new IllegalArgumentException("account " + account + " does not log in with oauth2");
        }
        return entries.computeIfAbsent(account, a -> new Entry(grant));
    }

    /** One account's token and the record of its renewals. */
    private final class Entry {
        private final OAuth2Grant grant;
        private final ReentrantLock renewal = new ReentrantLock();
        private volatile IssuedToken current;
        private volatile TokenException failure;
        private volatile Instant failedAt;
        private final AtomicLong renewals = new AtomicLong();
        private final AtomicLong refusals = new AtomicLong();

        Entry(OAuth2Grant grant) {
            this.grant = grant;
        }

        IssuedToken token() throws TokenException {
            IssuedToken held = current;
            Instant now = Instant.now();
            if (held != null && now.isBefore(held.renewAt(renewBefore))) {
                return held;
            }
            boolean usable = held != null && now.isBefore(held.expiresAt());
            if (usable && !renewal.tryLock()) {
                return held; // another caller renews; this one goes on with the token in hand
            }
            if (!usable) {
                renewal.lock();
            }
            try {
                return renew(held);
            } finally {
                renewal.unlock();
            }
        }

        /** Runs under the lock. */
        private IssuedToken renew(IssuedToken seen) throws TokenException {
            IssuedToken held = current;
            Instant now = Instant.now();
            if (held != null && held != seen && now.isBefore(held.renewAt(renewBefore))) {
                return held; // renewed by the caller this one waited for
            }
            TokenException recent = failure;
            if (recent != null && failedAt.plus(FAILURE_HOLD).isAfter(now)) {
                return unexpired(held, now, recent);
            }
            try {
                IssuedToken fresh = endpoint.request(grant);
                current = fresh;
                failure = null;
                renewals.incrementAndGet();
                return fresh;
            } catch (TokenException e) {
                failure = e;
                failedAt = Instant.now();
                LOG.warning(() -> "account " + grant.account() + ": " + e.getMessage());
                return unexpired(held, now, e);
            }
        }

        private IssuedToken unexpired(IssuedToken held, Instant now, TokenException e) throws TokenException {
            if (held != null && now.isBefore(held.expiresAt())) {
                return held;
            }
            throw e;
        }

        void refused(IssuedToken token) {
            IssuedToken held = current;
            if (held != null && held.equals(token)) {
                current = null;
                refusals.incrementAndGet();
            }
        }

        LoginState state() {
            IssuedToken held = current;
            TokenException e = failure;
            return new LoginState(grant.grant().setting(), grant.tokenUri().toString(),
                    held == null ? null : held.expiresAt(), held == null ? null : held.issuedAt(), renewals.get(), refusals.get(),
                    e == null ? null : e.getMessage(), e == null ? null : failedAt);
        }
    }
}
