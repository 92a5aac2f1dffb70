package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.account.control.SendPermit;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.Verdict;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tries one attempt of a mail on its account, then on the accounts of its failover list, in order:
 * <ul>
 *   <li>an account that is down ({@link AccountHealth}) is skipped;</li>
 *   <li>a rate limit that refuses hands the mail back, due when a slot should be free ({@link SendPermits});</li>
 *   <li>a relay that cannot be opened marks the account down, and the next account is tried;</li>
 *   <li>else the account's try ({@link AccountAttempt}) decides;</li>
 *   <li>when no account could be reached, the mail goes back to the queue with its attempts untouched, due when
 *       the first account's cool-down ends.</li>
 * </ul>
 * One per claimer: not thread safe. Its relays are borrowed for the claimer's lifetime and given back by
 * {@link #close()}.
 */
final class AccountFailover implements AutoCloseable {

    /** How long a mail waits when the rate state could not be read (lock timeout, first-use race). */
    static final Duration RATE_STATE_RETRY = Duration.ofSeconds(1);

    private final AccountParts parts;
    private final Map<String, Relay> borrowed = new HashMap<>();

    /** @param parts what the failover and its tries read */
    AccountFailover(AccountParts parts) {
        this.parts = parts;
    }

    /**
     * @param attempt the mail's attempt, composed and planned
     * @param marks   hears that the mail is about to be sent
     * @return the change to record
     * @throws NotRecorded when the claimer's gate did not open in time: nothing was delivered
     * @throws Unsendable  when the mail's account is not configured, or the mail cannot go through an account's relay
     */
    Change deliver(Attempt attempt, SendMarks marks) throws NotRecorded, Unsendable {
        List<Account> profile;
        try {
            profile = parts.accounts().profile(attempt.mail().account());
        } catch (IllegalArgumentException e) {
            throw new Unsendable(Verdict.TRANSIENT, e.getMessage(), attempt.mail().account());
        }
        Unreachable unreachable = new Unreachable();
        for (Account account : profile) {
            Instant now = Instant.now();
            Instant coolingUntil = parts.health().refusedUntil(account.name(), now);
            if (coolingUntil != null) {
                unreachable.add(account.name(), coolingUntil, "unreachable, cooling down until " + coolingUntil);
                continue;
            }
            SendPermit permit = parts.permits().acquire(account, now);
            if (permit == null || !permit.granted()) {
                return parts.verdicts().handedBack(attempt.mail(), permit == null ? now.plus(RATE_STATE_RETRY)
                        : parts.permits().dueAfter(account.name(), permit), null);
            }
            try (AccountAttempt onAccount = new AccountAttempt(account, permit, relay(account), parts)) {
                Change change = onAccount.deliver(attempt, marks);
                if (change != null) {
                    return change;
                }
                String why = FailureText.describe(onAccount.unreachable());
                unreachable.add(account.name(), parts.health().unreachable(account.name(), why, Instant.now()), why);
            }
        }
        return parts.verdicts().handedBack(attempt.mail(), unreachable.due(), unreachable.note(profile.size()));
    }

    private Relay relay(Account account) {
        return borrowed.computeIfAbsent(account.name(), n -> parts.relays().apply(account));
    }

    /** Gives the borrowed relays back to the pool for the next claimer. */
    @Override
    public void close() {
        borrowed.values().forEach(parts.giveBack());
        borrowed.clear();
    }

    /** The accounts of one attempt that could not be reached, and when the first may be tried again. */
    private static final class Unreachable {
        private final StringBuilder text = new StringBuilder();
        private Instant due;

        void add(String account, Instant retryAt, String why) {
            due = due == null || retryAt.isBefore(due) ? retryAt : due;
            text.append(text.isEmpty() ? "" : "; ").append(account).append(": ").append(why);
        }

        Instant due() {
            return due != null ? due : Instant.now().plus(RATE_STATE_RETRY);
        }

        String note(int accounts) {
            return (accounts > 1 ? "all " + accounts + " accounts unreachable: " : "account unreachable: ") + text
                    + "; waiting in the queue, attempts untouched";
        }
    }
}
