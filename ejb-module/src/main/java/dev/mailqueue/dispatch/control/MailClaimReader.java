package dev.mailqueue.dispatch.control;

import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.queue.control.AccountFilter;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.ClaimStore;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.chunk.AbstractItemReader;
import jakarta.batch.runtime.context.JobContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.io.Serializable;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reads the dispatch job's items by claiming them: when its buffer is empty it claims up to
 * {@code mailqueue.dispatch.batch-size} due mails under a lease for its claimer (a short transaction of
 * its own, {@link DispatchTransactions#claim}), of the accounts this server has, leaving alone those that
 * cannot be reached now. The step ends when a claim finds nothing due, unless mail was enqueued on this server
 * meanwhile ({@link DispatchSignal}): then it claims once more, so a mail enqueued as a claimer ends is
 * not left for the next timer tick. No checkpoint is needed: the rows' leases are the state.
 */
@Named("MailClaimReader")
@Dependent // a new instance per step execution, as batch artifacts need
public class MailClaimReader extends AbstractItemReader {

    private static final Logger LOG = Logger.getLogger(MailClaimReader.class.getName());

    @Inject
    JobContext job;

    @Inject
    DispatchTransactions transactions;

    @Inject
    ServerInstance server;

    @Inject
    QueueSettings settings;

    @Inject
    DispatchMetrics metrics;

    @Inject
    DispatchSignal signal;

    @Inject
    AccountHealth health;

    @Inject
    AccountThrottle throttle;

    @Inject
    Accounts accounts;

    @Inject
    ExpiredLeaseSweep sweep;

    private final Deque<ClaimedMail> claimed = new ArrayDeque<>();
    private Claimer claimer;

    @Override
    public void open(Serializable checkpoint) {
        claimer = ClaimerLifecycle.of(job);
    }

    /**
     * @return the next claimed mail, or null when nothing is due or the claim lost a lock conflict with
     *         another claimer (ends the step; the next timer tick claims again)
     */
    @Override
    public Object readItem() {
        while (claimed.isEmpty()) {
            long enqueued = signal.generation();
            long started = System.nanoTime();
            ClaimStore.Claim claim;
            Instant renewal;
            Instant now = Instant.now();
            if (claimer.lostLease()) {
                return null;
            }
            try {
                Set<String> skipped = new HashSet<>(unreachableAccounts());
                Map<String, Integer> caps = rateCaps(now, skipped);
                renewal = transactions.renewalAt(now, claimer.leaseUntil());
                claim = transactions.claim(claimer.lease(), claimer.nextClaim(), server.name(), now, renewal,
                        settings.batchSize(),
                        AccountFilter.of(accounts.names(), skipped, accounts.defaultAccount().name()).capping(caps),
                        sweep.turn(now));
            } catch (RuntimeException e) {
                if (!isLockConflict(e)) {
                    throw e;
                }
                LOG.info(() -> claimer.owner() + " stops: its claim lost a lock conflict (" + e.getMessage() + ")");
                return null;
            }
            metrics.claimed(Duration.ofNanos(System.nanoTime() - started), claim.mails().size());
            if (!claim.leaseHeld()) {
                claimer.leaseLost();
                LOG.warning(() -> claimer.owner() + " stops: its lease was taken back (it had run out)");
                return null;
            }
            if (renewal != null) {
                claimer.renewed(renewal);
            }
            claimer.leased(claim.mails());
            claimed.addAll(claim.mails());
            if (claimed.isEmpty() && signal.generation() == enqueued) {
                return null;
            }
        }
        return claimed.poll();
    }

    /**
     * @return accounts whose mails no claimer could send now: they and every failover account are cooling
     *         down (once an account's cool-down is over its mails are claimed again, and the first claimer
     *         to try it is its probe)
     */
    private Set<String> unreachableAccounts() {
        Set<String> down = health.coolingDown(Instant.now());
        if (down.isEmpty()) {
            return Set.of();
        }
        Set<String> skipped = new HashSet<>();
        for (String name : down) {
            if (accounts.profile(name).stream().allMatch(a -> down.contains(a.name()))) {
                skipped.add(name);
            }
        }
        return skipped;
    }

    /**
     * What the rate limits let each rate-limited account send now ({@link AccountThrottle#available}), shared
     * among this server's claimers, so that the claim takes no more of its mail than it may send: each claimer
     * takes at most its share, {@code available / claimers} and at least 1, so that claimers that read the
     * same free slots at the same moment do not all take them. An account that may send nothing now is added
     * to {@code skipped} (its mail waits, unclaimed, no attempt spent); one whose share is under a batch gets it
     * as its cap. An account whose rate state cannot
     * be read gets no cap (each mail then asks for its permit, as always). Servers do not share: claimers of
     * several servers may still take more than the slots, and hand the rest back.
     *
     * None at all with {@code mailqueue.dispatch.rate-caps=false}.
     *
     * @param now     now
     * @param skipped accounts the claim leaves alone; added to
     * @return caps of the accounts that may send fewer than a batch now
     */
    private Map<String, Integer> rateCaps(Instant now, Set<String> skipped) {
        Map<String, Integer> caps = new HashMap<>();
        if (!settings.rateCaps()) {
            return caps;
        }
        for (Account account : accounts.all()) {
            if (!account.isRateLimited() || skipped.contains(account.name())) {
                continue;
            }
            int available;
            try {
                available = throttle.available(account, now);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "rate state of account " + account.name() + " not readable; claiming without a cap", e);
                continue;
            }
            int share = available == Integer.MAX_VALUE || available <= 0 ? available
                    : Math.max(1, available / Math.max(1, settings.claimers()));
            if (share <= 0) {
                skipped.add(account.name());
            } else if (share < settings.batchSize()) {
                caps.put(account.name(), share);
            }
        }
        return caps;
    }

    /** SQLSTATE class 40 is transaction rollback: deadlock victim or lock timeout. */
    static boolean isLockConflict(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("40")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
