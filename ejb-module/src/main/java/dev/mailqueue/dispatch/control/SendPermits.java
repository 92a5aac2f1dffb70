package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.SendPermit;
import dev.mailqueue.log.control.LogText;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One claimer's side of its accounts' rate limits ({@link AccountThrottle}): takes a send slot before a hand-over,
 * settles it after, and slows an account down when its server asks to. An account refused lately is remembered with
 * how many mails it deferred so far, until its first slot is expected free, so that a backlog is spread over the
 * minutes ahead in turn instead of all falling due at one instant, and the rate state is not asked once per mail.
 * One per claimer: not thread safe.
 */
final class SendPermits {

    private static final Logger LOG = Logger.getLogger(SendPermits.class.getName());

    private final AccountThrottle throttle;
    private final Map<String, Refusal> refused = new HashMap<>();

    private static final class Refusal {
        final SendPermit permit;
        int deferred;

        Refusal(SendPermit permit) {
            this.permit = permit;
        }
    }

    /** @param throttle the accounts' shared rate state */
    SendPermits(AccountThrottle throttle) {
        this.throttle = throttle;
    }

    /**
     * @param account the account to send through
     * @param now     now
     * @return the permit (granted, or refused with when a slot is expected), or null when the rate state could not
     *         be read (lock timeout, first-use race)
     */
    SendPermit acquire(Account account, Instant now) {
        Refusal refusal = refused.get(account.name());
        if (refusal != null) {
            if (now.isBefore(refusal.permit.retryTimes().get(0))) {
                return refusal.permit;
            }
            refused.remove(account.name());
        }
        try {
            return throttle.acquire(account, now);
        } catch (RuntimeException e) {
            LOG.log(Level.INFO, "rate state of account " + account.name() + " not available now; deferring", e);
            return null;
        }
    }

    /**
     * @param account the account's name
     * @param refusal a permit {@link #acquire} refused
     * @return when the next mail it defers is due: each deferred mail gets the next expected slot
     */
    Instant dueAfter(String account, SendPermit refusal) {
        Refusal kept = refused.computeIfAbsent(account, n -> new Refusal(refusal));
        return kept.permit.retryAt(kept.deferred++);
    }

    /**
     * Gives a granted permit's slot back: freed at once when nothing reached the server, else kept for the
     * account's window from now. A failure to write the rate state leaves the slot taken until it frees itself:
     * fewer sends, never more.
     *
     * @param permit           a granted permit
     * @param reachedServer    true when the server may have got the mail
     */
    void settle(SendPermit permit, boolean reachedServer) {
        if (!permit.holdsState()) {
            return;
        }
        try {
            if (reachedServer) {
                throttle.complete(permit, Instant.now());
            } else {
                throttle.release(permit, Instant.now());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not settle a send slot of account " + permit.account(), e);
        }
    }

    /**
     * Lowers the account's per-minute limit when the reply asks the sender to slow down ({@link SmtpReply#isSlowDown});
     * does nothing for an account without a per-minute limit.
     *
     * @param account the account whose server replied
     * @param reply   its reply
     */
    void slowDownOn(Account account, SmtpReply reply) {
        if (reply.isSlowDown() && account.perMinute() > 0) {
            try {
                int limit = throttle.slowDown(account, Instant.now());
                LOG.info(() -> "account " + account.name() + " slows down to " + limit + " per minute after: "
                        + LogText.escape(reply.text()));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not slow down account " + account.name(), e);
            }
        }
    }
}
