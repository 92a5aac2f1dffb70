package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.account.control.SendPermit;
import dev.mailqueue.mail.entity.Utc;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;

import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends one claimer's mails through their SMTP accounts: the account a mail was routed to, then, when
 * that account is unreachable (connecting failed, so the server has nothing of the message), the
 * next account of its failover list, in the same attempt. Before each send the account's rate limit
 * is asked ({@link AccountThrottle}); when it refuses, the mail is not sent but deferred (see
 * {@link Result#deferUntil()}). A 421 or 4.7.x reply slows the account down. One SMTP connection
 * per account, opened on first use and reused. Not thread safe: one per claimer.
 */
final class AccountSender implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AccountSender.class.getName());

    /** How long a mail waits when the rate state could not be read (lock timeout, first-use race). */
    static final long RATE_STATE_RETRY_MS = 1000;

    /**
     * What became of one mail.
     *
     * @param account    the account that sent it, or made the last try; null when deferred before any try
     * @param sent       true when the server accepted it
     * @param reply      the server's reply, {@link SmtpReply#NONE} when none came
     * @param error      why it failed, or null
     * @param deferUntil when not null: nothing was sent, no attempt counts; the mail is due again then
     * @param failure    what the server's refusal threw (e.g. a {@code SendFailedException} listing
     *                   refused recipients), for the caller to classify; null when sent, deferred, or when
     *                   no account could be reached (then the failure is transient by nature)
     */
    record Result(String account, boolean sent, SmtpReply reply, String error, LocalDateTime deferUntil,
                  MessagingException failure) {

        static Result deferred(LocalDateTime until) {
            return new Result(null, false, SmtpReply.NONE, null, until, null);
        }

        /** @return true when no account could be reached: nothing reached a server, worth another try */
        boolean unreachable() {
            return !sent && deferUntil == null && failure == null;
        }
    }

    private final Accounts accounts;
    private final AccountThrottle throttle;
    private final Function<Account, SmtpConnection> connect;
    private final Map<String, SmtpConnection> connections = new HashMap<>();
    /**
     * Per account refused lately: the refusal and how many mails it has deferred so far, kept until the
     * first slot is expected free, so that a backlog is spread over the minutes ahead in turn instead
     * of all falling due again at the same instant, and the rate state is not asked once per mail.
     */
    private final Map<String, Refusal> refused = new HashMap<>();

    private static final class Refusal {
        final SendPermit permit;
        int deferred;

        Refusal(SendPermit permit) {
            this.permit = permit;
        }
    }

    AccountSender(Accounts accounts, AccountSessions sessions, AccountThrottle throttle) {
        this(accounts, throttle, account -> new SmtpConnection(sessions.of(account)));
    }

    AccountSender(Accounts accounts, AccountThrottle throttle, Function<Account, SmtpConnection> connect) {
        this.accounts = accounts;
        this.throttle = throttle;
        this.connect = connect;
    }

    /**
     * @param accountName the account the mail was routed to; null for the default account
     * @param message     the composed message
     * @param recipients  the envelope recipients still open, 1 or more
     * @return sent, failed (with the account of the last try), or deferred by a rate limit
     */
    Result send(String accountName, MimeMessage message, Address[] recipients) {
        List<Account> profile;
        try {
            profile = accounts.profile(accountName);
        } catch (IllegalArgumentException e) {
            return new Result(accountName, false, SmtpReply.NONE, e.getMessage(), null, null);
        }
        StringBuilder unreachable = new StringBuilder();
        String lastAccount = null;
        SmtpReply lastReply = SmtpReply.NONE;
        for (Account account : profile) {
            SendPermit permit = permit(account);
            if (permit == null) {
                return Result.deferred(Utc.now().plusNanos(RATE_STATE_RETRY_MS * 1_000_000L));
            }
            if (!permit.granted()) {
                Refusal refusal = refused.computeIfAbsent(account.name(), n -> new Refusal(permit));
                return Result.deferred(refusal.permit.retryAt(refusal.deferred++));
            }
            SmtpConnection connection = connections.computeIfAbsent(account.name(), n -> connect.apply(account));
            try {
                SmtpReply reply = connection.send(message, recipients);
                settle(permit, false);
                return new Result(account.name(), true, reply, null, null, null);
            } catch (SmtpUnreachableException e) {
                settle(permit, true);
                lastReply = SmtpReply.of(e);
                slowDownOn(account, lastReply);
                lastAccount = account.name();
                unreachable.append(unreachable.isEmpty() ? "" : "; ").append(account.name()).append(": ")
                        .append(MailDispatchWriter.describe(e));
                LOG.fine(() -> "account " + account.name() + " unreachable: " + e.getMessage());
            } catch (MessagingException e) {
                settle(permit, false);
                SmtpReply reply = SmtpReply.of(e);
                slowDownOn(account, reply);
                return new Result(account.name(), false, reply, MailDispatchWriter.describe(e), null, e);
            }
        }
        return new Result(lastAccount, false, lastReply, (profile.size() > 1
                ? "all " + profile.size() + " accounts unreachable: " : "account unreachable: ") + unreachable, null, null);
    }

    /** @return the permit, or null when the rate state could not be read */
    private SendPermit permit(Account account) {
        LocalDateTime now = Utc.now();
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

    private void settle(SendPermit permit, boolean neverReachedServer) {
        if (!permit.holdsState()) {
            return;
        }
        try {
            if (neverReachedServer) {
                throttle.release(permit, Utc.now());
            } else {
                throttle.complete(permit, Utc.now());
            }
        } catch (RuntimeException e) {
            // The slot stays taken as in flight and frees itself later: fewer sends, never more.
            LOG.log(Level.WARNING, "could not settle a send slot of account " + permit.account(), e);
        }
    }

    private void slowDownOn(Account account, SmtpReply reply) {
        if (reply.isSlowDown() && account.perMinute() > 0) {
            try {
                int limit = throttle.slowDown(account, Utc.now());
                LOG.info(() -> "account " + account.name() + " slows down to " + limit + " per minute after: "
                        + reply.text());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not slow down account " + account.name(), e);
            }
        }
    }

    /** Closes every open connection (QUIT). */
    @Override
    public void close() {
        connections.values().forEach(SmtpConnection::close);
        connections.clear();
    }
}
