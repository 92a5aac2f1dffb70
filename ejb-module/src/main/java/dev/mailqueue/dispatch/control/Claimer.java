package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.simulator.control.SimulatorAddress;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * One claimer: the state of one execution of the dispatch job, shared by its reader, processor and
 * writer. It holds the mails it leased until their changes are submitted, and the changes not yet
 * submitted: each mail's outcome waits to be submitted together with the next mail's send-started mark
 * ({@link OutcomeJournal}), or until the chunk ends ({@link #flush()}). A crash thus leaves at most one
 * mail whose outcome is unknown: the one in flight. Not thread safe, apart from {@link #held()}, which
 * the lease keeper reads.
 */
public final class Claimer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Claimer.class.getName());

    /** How long a claimer waits for the journal in one go before it says so in the log again. */
    static final Duration JOURNAL_PATIENCE = Duration.ofSeconds(30);

    private final String owner;
    private final OutcomeJournal journal;
    private final MailDelivery delivery;
    private final Complaints complaints;
    private final Set<Long> held = ConcurrentHashMap.newKeySet();
    private final List<Change> waiting = new ArrayList<>();
    private GroupCommit.Ticket last = GroupCommit.Ticket.DONE;
    private long sent;

    /** Hears of recipients at the simulator's {@code complaint@} address that accepted a mail. */
    @FunctionalInterface
    interface Complaints {
        /** Called once the mail's outcome is durable. */
        void complain(long mailId, String messageId, String address);
    }

    Claimer(String owner, OutcomeJournal journal, MailDelivery delivery) {
        this(owner, journal, delivery, (id, messageId, address) -> { });
    }

    Claimer(String owner, OutcomeJournal journal, MailDelivery delivery, Complaints complaints) {
        this.owner = owner;
        this.journal = journal;
        this.delivery = delivery;
        this.complaints = complaints;
    }

    /** @return the lease owner of this claimer's rows, e.g. {@code host/server#42} */
    public String owner() {
        return owner;
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
     * be submitted with the next mark. When the database is away and the mark cannot be committed, it
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
            } catch (MailDelivery.NotRecorded e) {
                LOG.warning(() -> owner + ": mail " + mail.id() + " was not sent, its send-started mark could not be"
                        + " recorded (" + e.getCause().getMessage() + "); waiting for the database");
                awaitJournal();
            }
        }
    }

    private GroupCommit.Ticket sendStarted(long mailId, Instant at) {
        List<Change> group = new ArrayList<>(waiting.size() + 1);
        group.addAll(waiting);
        group.add(new Change.SendStarted(mailId, owner, at));
        waiting.clear();
        last = journal.submit(group);
        return last;
    }

    /**
     * Simulated complaints come after the outcome they follow, as a real one would: the outcome is made
     * durable first (a flush; only mails to the simulator pay for it).
     */
    private void complainAfter(ClaimedMail mail, Change.Attempted attempted) {
        List<String> complaining = attempted.result().recipients().stream()
                .filter(r -> r.status() == dev.mailqueue.mail.entity.RecipientStatus.SENT
                        && SimulatorAddress.of(r.address()) == SimulatorAddress.Kind.COMPLAINT)
                .map(dev.mailqueue.queue.control.RecipientResult::address).toList();
        if (!complaining.isEmpty()) {
            flush();
            complaining.forEach(address -> complaints.complain(mail.id(), mail.messageId(), address));
        }
    }

    /** Submits the changes that wait and returns once everything this claimer submitted is durable. */
    void flush() {
        if (!waiting.isEmpty()) {
            last = journal.submit(List.copyOf(waiting));
            waiting.clear();
        }
        try {
            while (!last.await(JOURNAL_PATIENCE.toMillis())) {
                LOG.warning(() -> owner + ": its changes are still not recorded; waiting for the database");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitJournal() {
        try {
            while (!journal.awaitAvailable(JOURNAL_PATIENCE)) {
                LOG.warning(() -> owner + ": the database is still away; not sending");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(owner + " was interrupted while waiting for the database", e);
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
        waiting.add(new Change.Released(owner, List.copyOf(held)));
        last = journal.submit(List.copyOf(waiting));
        waiting.clear();
        held.clear();
        delivery.close();
    }
}
