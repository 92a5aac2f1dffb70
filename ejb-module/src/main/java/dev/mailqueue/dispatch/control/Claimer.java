package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.address.control.SimulatorAddress;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One claimer: the state of one execution of the dispatch job, shared by its reader, processor and
 * writer. It holds the mails it claimed until their changes are submitted, and the changes not yet
 * submitted: each mail's outcome waits to be submitted when the next mail is about to be sent
 * ({@link OutcomeJournal}), or until the chunk ends ({@link #flush()}), and the next mail's DATA ends only once
 * every change submitted before it is committed. It sends its mails one at a time, in its claims' order
 * ({@link #nextClaim()}), so a crash leaves at most one mail whose outcome is unknown, and the store knows which:
 * the first of its unrecorded mails in that order ({@link dev.mailqueue.queue.control.ExpiredLease}). No write
 * marks a send's start.
 * <p>
 * Its lease fences it: the end of a mail's DATA also waits until the claimer's lease, as last committed, runs at
 * least a sixth of the lease time beyond now ({@link #holdsLease}), so a claimer whose renewals stopped reaching
 * the database (or whose lease another server took back) sends nothing more, and its mail goes out once, from
 * whoever takes it back. The sixth covers the clocks of two servers disagreeing and the time from the check to
 * the final ".". Not thread safe, apart from {@link #held()} and the lease's state, which the lease keeper uses.
 */
public final class Claimer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Claimer.class.getName());

    /** How long a claimer waits for the journal in one go before it says so in the log again. */
    static final Duration JOURNAL_PATIENCE = Duration.ofSeconds(30);

    /** How often the end of DATA looks again for a renewal of the lease that is late. */
    static final Duration LEASE_POLL = Duration.ofMillis(20);

    private final Lease lease;
    private final OutcomeJournal journal;
    private final MailDelivery delivery;
    private final Complaints complaints;
    private final Set<Long> held = ConcurrentHashMap.newKeySet();
    private final Duration fence;
    private volatile Instant leaseUntil;
    private volatile boolean leaseLost;
    private final List<Change> waiting = new ArrayList<>();
    private GroupCommit.Ticket last = GroupCommit.Ticket.DONE;
    private long sent;
    private int claims;

    /** Hears of recipients at the simulator's {@code complaint@} address that accepted a mail. */
    @FunctionalInterface
    interface Complaints {
        /** Called once the mail's outcome is durable. */
        void complain(long mailId, String messageId, String address, int position);
    }

    /**
     * @param lease      the claimer's lease, just taken
     * @param leaseUntil when it runs out, as committed (or earlier)
     * @param fence      how long before {@code leaseUntil} the claimer stops ending DATA: a sixth of the lease time
     */
    Claimer(Lease lease, Instant leaseUntil, Duration fence, OutcomeJournal journal, MailDelivery delivery) {
        this(lease, leaseUntil, fence, journal, delivery, (id, messageId, address, position) -> { });
    }

    Claimer(Lease lease, Instant leaseUntil, Duration fence, OutcomeJournal journal, MailDelivery delivery,
            Complaints complaints) {
        this.lease = lease;
        this.leaseUntil = leaseUntil;
        this.fence = fence;
        this.journal = journal;
        this.delivery = delivery;
        this.complaints = complaints;
    }

    /** @param until the lease was renewed, committed, to run until then */
    void renewed(Instant until) {
        if (until.isAfter(leaseUntil)) {
            leaseUntil = until;
        }
    }

    /** @return when the lease runs out, as last committed (or earlier) */
    Instant leaseUntil() {
        return leaseUntil;
    }

    /** The lease is gone: another server took it back (it had run out). The claimer sends nothing more. */
    void leaseLost() {
        leaseLost = true;
    }

    /** @return true while the lease, as last committed, runs at least the fence beyond {@code now} */
    boolean holdsLease(Instant now) {
        return !leaseLost && now.plus(fence).isBefore(leaseUntil);
    }

    /** @return true once the lease is known to be gone */
    boolean lostLease() {
        return leaseLost;
    }

    /** @return this claimer's name in the log, e.g. {@code host/server#42} */
    public String owner() {
        return lease.owner();
    }

    /** @return this claimer's lease */
    public Lease lease() {
        return lease;
    }

    /** @return the number of the claim about to be made, 1 for the first: the claims' order is the send order */
    int nextClaim() {
        return ++claims;
    }

    /** @return the mails leased to this claimer whose change is not yet submitted (live view) */
    Set<Long> held() {
        return held;
    }

    /** @param mails mails a claim just leased to this claimer */
    void leased(List<ClaimedMail> mails) {
        mails.forEach(m -> held.add(m.id()));
    }

    /**
     * Sends one mail (outside any transaction: the caller suspends the chunk's) and keeps its change to
     * be submitted when the next mail is about to be sent. When the database is away and what waits cannot
     * be committed, it
     * waits until the journal writes again and sends the same mail again: nothing had been delivered.
     *
     * @param mail a mail this claimer leased
     * @return the change recorded for it
     */
    Change send(ClaimedMail mail) {
        while (true) {
            try {
                Change change = delivery.deliver(mail, this::sendStarted);
                waiting.add(change);
                held.remove(mail.id());
                if (change instanceof Change.Attempted a && a.result().sent()) {
                    sent++;
                    complainAfter(mail, a);
                }
                return change;
            } catch (NotRecorded e) {
                if (!holdsLease(Instant.now())) {
                    throw new LeaseLostException(lease.owner(), mail.id(), leaseLost);
                }
                LOG.warning(() -> lease.owner() + ": mail " + mail.id() + " was not sent, the outcome of the mail before"
                        + " it could not be recorded (" + e.getCause().getMessage() + "); waiting for the database");
                awaitJournal();
            }
        }
    }

    /**
     * The mail is about to be sent: what waits (the outcome of the mail before) is submitted, and the mail's DATA
     * may end once everything this claimer submitted so far is committed and the claimer holds its lease.
     */
    private SendGate sendStarted(long mailId, Instant at) {
        if (!waiting.isEmpty()) {
            last = journal.submit(lease.claimer(), List.copyOf(waiting));
            waiting.clear();
        }
        GroupCommit.Ticket recorded = last;
        return millis -> {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            if (!recorded.await(millis)) {
                return false;
            }
            // a renewal that is late may still come: wait for it as long as the wait allows
            while (!holdsLease(Instant.now())) {
                if (leaseLost || System.nanoTime() >= end) {
                    return false;
                }
                Thread.sleep(LEASE_POLL.toMillis());
            }
            return true;
        };
    }

    /**
     * Simulated complaints come after the outcome they follow, as a real one would: the outcome is made
     * durable first (a flush; only mails to the simulator pay for it).
     */
    private void complainAfter(ClaimedMail mail, Change.Attempted attempted) {
        List<String> complaining = attempted.result().recipients().stream()
                .filter(r -> r.status() == dev.mailqueue.queue.entity.RecipientStatus.SENT
                        && SimulatorAddress.of(r.address()) == SimulatorAddress.Kind.COMPLAINT)
                .map(dev.mailqueue.queue.control.RecipientResult::address).toList();
        if (!complaining.isEmpty()) {
            flush();
            complaining.forEach(address -> complaints.complain(mail.id(), mail.messageId(), address,
                    RecipientPlan.position(mail, address)));
        }
    }

    /** Submits the changes that wait and returns once everything this claimer submitted is durable. */
    void flush() {
        if (!waiting.isEmpty()) {
            last = journal.submit(lease.claimer(), List.copyOf(waiting));
            waiting.clear();
        }
        try {
            while (!last.await(JOURNAL_PATIENCE.toMillis())) {
                LOG.warning(() -> lease.owner() + ": its changes are still not recorded; waiting for the database");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitJournal() {
        try {
            while (!journal.awaitAvailable(JOURNAL_PATIENCE)) {
                LOG.warning(() -> lease.owner() + ": the database is still away; not sending");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(lease.owner() + " was interrupted while waiting for the database", e);
        }
    }

    /** @return mails this claimer's SMTP servers accepted */
    long sent() {
        return sent;
    }

    /**
     * Ends the claimer: submits what waits, releases the mails it leased and never began to send (they go
     * back to the queue as they were, at once, not when their lease runs out), and gives its SMTP
     * connections back to the pool. Does not wait for the release to be written.
     */
    @Override
    public void close() {
        waiting.add(new Change.Released(lease.claimer(), List.copyOf(held), true));
        last = journal.submit(lease.claimer(), List.copyOf(waiting));
        waiting.clear();
        held.clear();
        delivery.close();
    }
}
