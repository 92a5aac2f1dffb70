package dev.mailqueue.dispatch.control;

import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.ClaimStore;
import dev.mailqueue.settings.control.QueueSettings;
import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.simulator.control.SimulatedComplaints;
import dev.mailqueue.unsubscribe.control.UnsubscribeLinks;
import dev.mailqueue.dkim.control.DkimKeys;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.mail.Session;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * This server's live claimers: makes one for each dispatch job execution, keeps their leases alive
 * while they run (every third of the lease time each claimer's held rows get another lease time, so a
 * lease runs out only when its claimer is gone), and ends them.
 */
@ApplicationScoped
public class Claimers {

    private static final Logger LOG = Logger.getLogger(Claimers.class.getName());

    @Inject
    ServerInstance server;

    @Inject
    OutcomeJournal journal;

    @Inject
    Accounts accounts;

    @Inject
    AccountHealth health;

    @Inject
    AccountThrottle throttle;

    @Inject
    SmtpConnections connections;

    @Inject
    ClaimStore store;

    @Inject
    DispatchMetrics metrics;

    @Inject
    QueueSettings settings;

    @Inject
    AccountSessions sessions;

    @Inject
    SimulatedComplaints complaints;

    @Inject
    UnsubscribeLinks unsubscribeLinks;

    @Inject
    DispatchTransactions transactions;

    @Inject
    DkimKeys dkimKeys;

    private final Map<String, Claimer> live = new ConcurrentHashMap<>();

    /**
     * @param jobExecutionId the dispatch job execution the claimer is
     * @return a new claimer, renewed by this server until {@link #end}
     */
    public Claimer start(long jobExecutionId) {
        Instant until = transactions.leaseUntil(Instant.now()); // no later than the expiry start commits
        Lease lease = transactions.start(server.leaseOwner(jobExecutionId));
        Verdicts verdicts = new Verdicts(lease, server.name());
        MailDelivery delivery = new MailDelivery(
                new MailComposer(composer(), store::body, store::attachmentContent, (list, recipient, at) ->
                        unsubscribeLinks.enabled() ? unsubscribeLinks.headers(list, recipient, at) : List.of(),
                        new DkimSigning(dkimKeys)),
                new RecipientPlan.Policy(settings.deliveryMode(), settings.redirectTo(), settings.maxAttempts()),
                new AccountFailover(new AccountParts(accounts, health, new SendPermits(throttle), connections::borrow,
                        connections::giveBack, metrics::sent, settings.recordWaitMillis(), verdicts)),
                verdicts);
        Claimer claimer = new Claimer(lease, until, fence(), journal, delivery, complaints::complain);
        live.put(lease.owner(), claimer);
        return claimer;
    }

    /**
     * @return the session that composes every message (its MIME settings only): the default account's, else the first
     *         SMTP account's when the default sends through an API; a session with no properties when no account
     *         uses SMTP (no mail session is configured then, and none sends)
     */
    private Session composer() {
        Account preferred = accounts.defaultAccount();
        if (!preferred.usesSmtp()) {
            preferred = accounts.all().stream().filter(Account::usesSmtp).findFirst().orElse(null);
        }
        return preferred == null ? Session.getInstance(new java.util.Properties()) : sessions.of(preferred);
    }

    /** @param claimer a claimer that ends: it releases what it holds and is no longer renewed */
    public void end(Claimer claimer) {
        live.remove(claimer.owner());
        claimer.close();
    }

    /** @return the live claimers */
    Collection<Claimer> live() {
        return List.copyOf(live.values());
    }

    /** @return how long before its lease runs out a claimer stops ending DATA: a sixth of the lease time */
    Duration fence() {
        return Duration.ofMillis(settings.leaseMillis() / 6);
    }

    /**
     * Renews the lease of every live claimer, one row each however many mails it holds, in one short transaction;
     * called every third of the lease time (a claim renews its claimer's lease too when this is late). A claimer whose row is gone
     * hears that it lost its lease; when the database cannot be reached nothing changes, and a claimer whose lease
     * comes near its end stops ending DATA ({@link Claimer#holdsLease}).
     */
    public void renewLeases() {
        List<Claimer> claimers = live().stream().toList();
        if (claimers.isEmpty()) {
            return;
        }
        Instant until = transactions.leaseUntil(Instant.now());
        Set<Long> renewed;
        try {
            renewed = transactions.renew(claimers.stream().map(c -> c.lease().claimer()).toList(), until);
        } catch (RuntimeException e) {
            LOG.warning(() -> "could not renew the leases of " + claimers.size() + " claimers: " + e.getMessage());
            return;
        }
        for (Claimer claimer : claimers) {
            if (renewed.contains(claimer.lease().claimer())) {
                claimer.renewed(until);
            } else {
                LOG.warning(() -> claimer.owner() + " lost its lease: another server took it back");
                claimer.leaseLost();
            }
        }
    }
}
