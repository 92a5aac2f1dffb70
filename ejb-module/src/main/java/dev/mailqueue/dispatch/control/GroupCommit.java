package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.Change;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes what claimers record in short transactions, each holding every change submitted by then
 * (group commit): one writer thread takes all waiting submissions, writes them in one transaction, and
 * tells each submitter its changes are durable. A claimer submits one mail's outcome as its next mail is
 * about to be sent, and that mail's DATA ends only once the outcome is committed, so a crash leaves at most
 * one mail per claimer whose outcome is not known; claimers never wait for a chunk's end.
 * <p>
 * A commit costs the database far more than a row (PostgreSQL on the benchmark's machine: about 0.3 ms of CPU a
 * commit, 0.02 ms a mail), so the writer may hold a group for the other claimers that are sending (the commit
 * delay, as PostgreSQL's {@code commit_delay} does for WAL flushes): while fewer submitters are in the group than
 * submitted anything in the last ten delays, it waits for the next submission, but never past the delay after the
 * group's first submission was made. A lone claimer, or one whose peers are idle, is written at once.
 *
 * <p>What goes wrong with a write (the database away, or refusing one change) is {@link JournalWrites}'s to handle;
 * later submissions queue behind the group it is writing.
 * Thread safe; {@link #run()} is the writer thread's loop.
 */
final class GroupCommit implements Runnable {

    /** Most changes one transaction holds (a group held for the commit delay may pass it by one submission). */
    static final int MAX_GROUP = 2000;

    /** A submission's promise: done once its changes are written (or, refused, left out and logged). */
    static final class Ticket implements SendGate {

        /** A ticket for nothing: already done. */
        static final Ticket DONE = new Ticket();

        static {
            DONE.future.complete(null);
        }

        private final CompletableFuture<Void> future = new CompletableFuture<>();

        /**
         * @param millis longest wait, ms
         * @return true when the changes are durable; false when the wait ran out first
         * @throws InterruptedException when the waiting thread is interrupted
         */
        @Override
        public boolean await(long millis) throws InterruptedException {
            try {
                future.get(millis, TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException e) {
                return true; // never completed exceptionally
            }
        }

        boolean isDone() {
            return future.isDone();
        }
    }

    private record Submission(long submitter, long at, List<Change> changes, Ticket ticket) {
    }

    /** How many commit delays a submitter stays active for after its last submission. */
    static final int ACTIVE_DELAYS = 10;

    private final JournalWrites writes;
    private final long delayNanos;
    /** Submitters by the time of their last submission ({@link System#nanoTime()}). */
    private final Map<Long, Long> lastSubmitted = new ConcurrentHashMap<>();
    private final BlockingQueue<Submission> waiting = new LinkedBlockingQueue<>();
    private volatile boolean stopped;
    private volatile Instant writingSince;
    private volatile long written;

    /** A journal that writes each group at once (no commit delay). */
    GroupCommit(JournalWrites.Writer writer) {
        this(writer, Duration.ZERO);
    }

    /**
     * @param writer writes a group and commits
     * @param delay  the commit delay: how long a group may be held for other active submitters, 0 or more
     */
    GroupCommit(JournalWrites.Writer writer, Duration delay) {
        this.writes = new JournalWrites(writer, () -> stopped, waiting::size);
        this.delayNanos = delay.toNanos();
    }

    /**
     * @param submitter who submits (a claimer's id): the commit delay waits only for submitters that were active
     * @param changes   changes to write, in order; may be empty
     * @return done once they are durable
     */
    Ticket submit(long submitter, List<Change> changes) {
        if (changes.isEmpty()) {
            return Ticket.DONE;
        }
        Ticket ticket = new Ticket();
        long now = System.nanoTime();
        if (delayNanos > 0) {
            lastSubmitted.put(submitter, now);
        }
        waiting.add(new Submission(submitter, now, List.copyOf(changes), ticket));
        return ticket;
    }

    /** @return since when writes fail for want of the database, or null while they succeed */
    Instant unavailableSince() {
        return writes.unavailableSince();
    }

    /**
     * @return since when the group now being written has been under way (its commit not returned, whether it
     *         waits for the database or is tried again), or null while nothing is being written
     */
    Instant writingSince() {
        return writingSince;
    }

    /** @return submissions not yet written */
    int backlog() {
        return waiting.size();
    }

    /** @return changes written so far */
    long written() {
        return written;
    }

    /** Ends {@link #run()} once what is waiting is written, or at once if the database is unavailable. */
    void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        while (!stopped || !waiting.isEmpty() && writes.unavailableSince() == null) {
            Submission first;
            try {
                first = waiting.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (first == null) {
                continue;
            }
            List<Submission> group = new ArrayList<>();
            group.add(first);
            int size = first.changes().size();
            for (Submission next = waiting.peek(); next != null && size + next.changes().size() <= MAX_GROUP;
                 next = waiting.peek()) {
                group.add(waiting.poll());
                size += next.changes().size();
            }
            if (delayNanos > 0) {
                gather(group, size);
            }
            if (!write(group)) {
                return; // interrupted or stopped while the database was away
            }
        }
    }

    /**
     * Holds the group for the submitters that were active and are not in it yet, until they are or the delay after
     * the group's first submission has passed.
     * <p>
     * Interrupted, it stops waiting (the group is written, the interrupt kept for the loop).
     *
     * @param group the group, its first submission first; submissions taken are added to it
     * @param size  the changes in it
     */
    private void gather(List<Submission> group, int size) {
        long deadline = group.get(0).at() + delayNanos;
        Set<Long> in = new HashSet<>();
        group.forEach(s -> in.add(s.submitter()));
        int active = active(System.nanoTime());
        while (in.size() < active && !stopped) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Submission next;
            try {
                next = waiting.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (next == null) {
                return;
            }
            group.add(next);
            in.add(next.submitter());
            size += next.changes().size();
            if (size >= MAX_GROUP) {
                return;
            }
        }
    }

    /** @return how many submitters submitted within the last {@link #ACTIVE_DELAYS} delays; forgets the others */
    private int active(long now) {
        long since = now - ACTIVE_DELAYS * delayNanos;
        lastSubmitted.values().removeIf(at -> at - since < 0);
        return lastSubmitted.size();
    }

    /** @return false when interrupted (or stopped) while waiting for the database */
    private boolean write(List<Submission> group) {
        List<Change> changes = new ArrayList<>();
        group.forEach(s -> changes.addAll(s.changes()));
        writingSince = Instant.now();
        try {
            if (!writes.write(changes)) {
                return false;
            }
        } finally {
            writingSince = null;
        }
        written += changes.size();
        group.forEach(s -> s.ticket().future.complete(null));
        return true;
    }
}
