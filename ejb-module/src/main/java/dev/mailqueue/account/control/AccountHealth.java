package dev.mailqueue.account.control;

import dev.mailqueue.log.control.LogText;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Which SMTP accounts this server can reach: a circuit breaker per account. The first connection that
 * fails (refused, timed out, no greeting, EHLO, STARTTLS or AUTH refused) marks the account down for
 * {@code mailqueue.smtp.cool-down.ms}; meanwhile no claimer tries it, and its mails wait
 * in the queue with their attempts untouched. When the cool-down is over one claimer, and only one,
 * tries again (the probe): success marks the account up, failure starts another cool-down. So an
 * unreachable or silent server costs one connection timeout per cool-down on this server, not one per
 * mail. One log line when an account goes down and one when it is back. Thread safe.
 */
@ApplicationScoped
public class AccountHealth {

    private static final Logger LOG = Logger.getLogger(AccountHealth.class.getName());

    @Inject
    QueueSettings settings;

    private final Map<String, State> states = new ConcurrentHashMap<>();
    private final AtomicLong outages = new AtomicLong();

    /** A probe that has not told for this long is taken as lost (its claimer died), and another may try. */
    static final Duration PROBE_PATIENCE = Duration.ofMinutes(2);

    /**
     * An account that is down.
     *
     * @param since   when it went down
     * @param retryAt when a claimer may try it again (while probing: when the probe began)
     * @param reason  what the last failed connection said
     * @param probing true while a claimer is trying it again
     */
    public record Down(Instant since, Instant retryAt, String reason, boolean probing) {

        /**
         * @param now now
         * @return true while no claimer should take its mail: the cool-down runs, or a probe is under way
         */
        public boolean coolingDown(Instant now) {
            return now.isBefore(retryAt) || probing && now.isBefore(retryAt.plus(PROBE_PATIENCE));
        }
    }

    private record State(Down down) {
    }

    /** For tests outside a container. */
    public static AccountHealth of(QueueSettings settings) {
        AccountHealth health = new AccountHealth();
        health.settings = settings;
        return health;
    }

    /**
     * Asks to use an account now. An account that is down answers no until its cool-down is over; then
     * the first caller gets to probe it, and the others still hear no until the probe has told.
     *
     * @param account the account's name
     * @param now     now
     * @return null when the caller may connect; else when to ask again
     */
    public Instant refusedUntil(String account, Instant now) {
        State state = states.get(account);
        if (state == null) {
            return null;
        }
        Down down = state.down();
        if (down.coolingDown(now)) {
            return down.probing() ? now.plus(Duration.ofMillis(Math.min(1000, settings.coolDownMillis()))) : down.retryAt();
        }
        State probing = new State(new Down(down.since(), now, down.reason(), true)); // patience counts from now
        return states.replace(account, state, probing) ? null : refusedUntil(account, now);
    }

    /**
     * A connection to the account succeeded: it is up.
     *
     * @param account the account's name
     */
    public void reached(String account) {
        State was = states.remove(account);
        if (was != null) {
            LOG.info(() -> "Account " + account + " is reachable again after "
                    + Duration.between(was.down().since(), Instant.now()).toMillis() + " ms down");
        }
    }

    /**
     * A connection to the account failed before any mail transaction began.
     *
     * @param account the account's name
     * @param reason  what connecting said
     * @param now     now
     * @return when a claimer may try the account again
     */
    public Instant unreachable(String account, String reason, Instant now) {
        Instant retryAt = now.plusMillis(settings.coolDownMillis());
        boolean[] wentDown = {false};
        states.compute(account, (name, was) -> {
            wentDown[0] = was == null;
            return new State(new Down(was == null ? now : was.down().since(), retryAt, reason, false));
        });
        if (wentDown[0]) {
            outages.incrementAndGet();
            LOG.warning(() -> "Account " + account + " is unreachable (" + LogText.escape(reason) + "); its mails wait in the queue,"
                    + " attempts untouched, and one claimer tries it again every " + settings.coolDownMillis() + " ms");
        }
        return retryAt;
    }

    /**
     * @param now now
     * @return the accounts no claimer should take mail for now: down, and cooling down or being probed
     */
    public java.util.Set<String> coolingDown(Instant now) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        states.forEach((name, state) -> {
            if (state.down().coolingDown(now)) {
                names.add(name);
            }
        });
        return names;
    }

    /** @return the accounts that are down now, by name */
    public Map<String, Down> down() {
        Map<String, Down> result = new TreeMap<>();
        states.forEach((name, state) -> result.put(name, state.down()));
        return result;
    }

    /** @return how many times an account went down since the server started */
    public long outages() {
        return outages.get();
    }
}
