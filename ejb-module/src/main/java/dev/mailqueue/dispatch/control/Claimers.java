package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimStore;
import dev.mailqueue.settings.control.QueueSettings;
import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.simulator.control.SimulatedComplaints;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.mail.Session;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This server's live claimers: makes one for each dispatch job execution, keeps their leases alive
 * while they run (every third of the lease time each claimer's held rows get another lease time, so a
 * lease runs out only when its claimer is gone), and ends them.
 */
@ApplicationScoped
public class Claimers {

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

    private final Map<String, Claimer> live = new ConcurrentHashMap<>();

    /**
     * @param jobExecutionId the dispatch job execution the claimer is
     * @return a new claimer, renewed by this server until {@link #end}
     */
    public Claimer start(long jobExecutionId) {
        String owner = server.leaseOwner(jobExecutionId);
        MailDelivery delivery = new MailDelivery(new MailDelivery.Parts(owner, server.name(), accounts, health,
                throttle, connections, composer(), store::body, store::attachmentContent, metrics::sent,
                settings.recordWaitMillis(), settings.deliveryMode(), settings.redirectTo(), settings.maxAttempts()));
        Claimer claimer = new Claimer(owner, journal, delivery, complaints::complain);
        live.put(owner, claimer);
        return claimer;
    }

    /** @return the default account's session: it composes every message (MIME settings only) */
    private Session composer() {
        return sessions.of(accounts.defaultAccount());
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

    /**
     * Renews the leases of every live claimer; called every third of the lease time. The renewals go to
     * the outcome journal ({@link Change.Renewed}), which writes them with its next group and keeps them
     * while the database is away; this does not wait for them.
     */
    public void renewLeases() {
        Instant until = Instant.now().plusMillis(settings.leaseMillis());
        for (Claimer claimer : live()) {
            List<Long> held = List.copyOf(claimer.held());
            if (!held.isEmpty()) {
                journal.submit(List.of(new Change.Renewed(claimer.owner(), held, until)));
            }
        }
    }
}
