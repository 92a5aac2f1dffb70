package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.Change;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Logger;

/**
 * This server's journal of what claimers record: outcomes, hand-backs, releases. Each
 * submission becomes durable in a short transaction of its own, grouped with whatever else was
 * submitted meanwhile ({@link GroupCommit}); one writer thread of the container
 * ({@link ManagedThreadFactory}) runs it, started on first use, for as long as the application runs,
 * so what a claimer submitted is written even when that claimer's job execution has ended or failed.
 */
@ApplicationScoped
public class OutcomeJournal {

    private static final Logger LOG = Logger.getLogger(OutcomeJournal.class.getName());

    @Resource
    ManagedThreadFactory threads;

    @Inject
    DispatchTransactions transactions;

    @Inject
    QueueSettings settings;

    private GroupCommit commits;
    private Thread writer;

    private synchronized GroupCommit commits() {
        if (commits == null) {
            commits = new GroupCommit(transactions::record, settings.commitDelay());
            writer = threads.newThread(commits);
            writer.setName("mailqueue-journal");
            writer.start();
        }
        return commits;
    }

    /**
     * @param claimer the submitting claimer's id (its lease's): the commit delay waits only for claimers that are
     *                sending ({@code mailqueue.dispatch.commit-delay.us})
     * @param changes changes to write, in order (may be empty)
     * @return a ticket that is done once they are durable
     */
    public GroupCommit.Ticket submit(long claimer, List<Change> changes) {
        return changes.isEmpty() ? GroupCommit.Ticket.DONE : commits().submit(claimer, changes);
    }

    /** @return since when the journal cannot write for want of the database, or null while it can */
    public Instant unavailableSince() {
        GroupCommit c = commits;
        return c == null ? null : c.unavailableSince();
    }

    /**
     * @return since when the journal's current write has been under way without its commit returning, or
     *         null while it writes nothing (a commit that waits, e.g. for PostgreSQL's only synchronous standby,
     *         shows here while the database still answers reads)
     */
    public Instant writingSince() {
        GroupCommit c = commits;
        return c == null ? null : c.writingSince();
    }

    /**
     * Waits until the journal writes again, e.g. before a claimer that could not record goes on.
     *
     * @param atMost longest wait
     * @return true when the database answers the journal again (or never stopped)
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean awaitAvailable(Duration atMost) throws InterruptedException {
        long end = System.nanoTime() + atMost.toNanos();
        while (unavailableSince() != null) {
            if (System.nanoTime() >= end) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    @PreDestroy
    synchronized void stop() {
        if (commits == null) {
            return;
        }
        commits.stop();
        try {
            writer.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (commits.backlog() > 0) {
            LOG.warning(() -> "stopped with " + commits.backlog() + " submissions unwritten");
        }
    }
}
