package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.AccountFilter;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.ClaimStore;
import dev.mailqueue.queue.control.OutcomeStore;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.List;

/**
 * The dispatcher's database work, each call a short transaction of its own that commits when the call
 * returns (REQUIRES_NEW), whatever transaction the caller is in: a claim commits its leases before a
 * mail is sent, and a group of recorded changes is durable when {@link #record} returns. Nothing here
 * talks to an SMTP server. The two computations of a lease's end ({@link #renewalAt}, {@link #leaseUntil}) touch no
 * database and start no transaction (SUPPORTS): a claim asks one of them each time.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class DispatchTransactions {

    @Inject
    ClaimStore claims;

    @Inject
    OutcomeStore outcomes;

    @Inject
    QueueSettings settings;

    /**
     * Starts a claimer's lease and commits.
     *
     * @param owner the claimer's name in the log
     * @return its lease, running for {@code mailqueue.dispatch.lease.ms}
     * @throws dev.mailqueue.queue.control.StoreException (wrapped by the container) when the database fails
     */
    public Lease start(String owner) {
        Instant now = Instant.now();
        return claims.start(owner, now, leaseUntil(now));
    }

    /**
     * @see ClaimStore#claim
     * @throws dev.mailqueue.queue.control.StoreException (wrapped by the container) when the database fails
     */
    public ClaimStore.Claim claim(Lease lease, int claimNo, String server, Instant now, Instant until, int limit,
                                  AccountFilter accounts, boolean recover) {
        return claims.claim(lease, claimNo, server, now, until, limit, settings.inDoubt(), accounts, recover);
    }

    /**
     * Whether a claim renews its claimer's lease. The lease keeper renews every live claimer's lease every third of
     * the lease time ({@link Claimers#renewLeases}), so a claimer's lease normally runs two thirds of the lease time
     * or more beyond now and a claim leaves it as it is (one MAIL_CLAIMER write saved per claim). A claim renews it
     * when half the lease time or less is left: a renewal that failed or is late.
     *
     * @param now       the claim's time
     * @param heldUntil when the claimer's lease runs out, as last committed
     * @return when the claim makes the lease run until ({@link #leaseUntil}), or null when it need not renew it
     */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Instant renewalAt(Instant now, Instant heldUntil) {
        return heldUntil.isAfter(now.plusMillis(settings.leaseMillis() / 2)) ? null : leaseUntil(now);
    }

    /**
     * Renews claimers' leases and commits.
     *
     * @see ClaimStore#renew
     * @throws dev.mailqueue.queue.control.StoreException (wrapped by the container) when the database fails
     */
    public java.util.Set<Long> renew(java.util.Collection<Long> claimers, Instant until) {
        return claims.renew(claimers, until);
    }

    /** @return when a lease taken or renewed at {@code now} runs out: {@code mailqueue.dispatch.lease.ms} later */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Instant leaseUntil(Instant now) {
        return now.plusMillis(settings.leaseMillis());
    }

    /** @see ClaimStore#countClaimable */
    public int countClaimable(Instant now, int max, boolean withExpired, AccountFilter accounts) {
        return claims.countClaimable(now, max, withExpired, accounts);
    }

    /**
     * Writes a group of changes and commits.
     *
     * @param changes the changes, in order
     * @param verify  see {@link OutcomeStore#apply}
     * @throws dev.mailqueue.queue.control.StoreException (wrapped by the container) when the database
     *                                                    refuses; nothing is written then
     */
    public void record(List<Change> changes, boolean verify) {
        outcomes.apply(changes, settings.retryPolicy(), settings.inDoubt(), verify);
    }
}
