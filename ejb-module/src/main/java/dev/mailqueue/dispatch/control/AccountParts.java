package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.Accounts;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What one claimer's account tries read ({@link AccountFailover}, {@link AccountAttempt}).
 *
 * @param accounts       the configured accounts, their failover lists and envelope senders
 * @param health         which accounts are down
 * @param permits        the claimer's side of the rate limits
 * @param relays         borrows a relay of an account from the server's pool
 * @param giveBack       gives a borrowed relay back to the pool
 * @param timer          the send metrics
 * @param markWaitMillis how long the end of DATA waits for the claimer's gate, in ms (1 or more)
 * @param verdicts       makes the changes to record
 */
record AccountParts(Accounts accounts, AccountHealth health, SendPermits permits, Function<Account, Relay> relays,
                    Consumer<Relay> giveBack, SendTimer timer, long markWaitMillis, Verdicts verdicts) {

    /** Hears how long each hand-over took and whether the server accepted it (the metrics). */
    @FunctionalInterface
    interface SendTimer {
        /**
         * @param elapsed  from the claimer's mark to the server's last reply
         * @param accepted true when the server accepted the mail for any recipient
         */
        void sent(Duration elapsed, boolean accepted);
    }
}
