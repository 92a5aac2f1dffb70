package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.StoreException;

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
import java.util.logging.Level;
import java.util.logging.Logger;

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
 * <p>What goes wrong:
 * <ul>
 *   <li>the database is unreachable (a lost connection, a restart): the group is kept, in order, and
 *       written again every 50 ms to 2 s until it succeeds; later submissions queue behind it. A commit
 *       whose outcome is unknown is written again with {@code verify}, so nothing is logged twice;</li>
 *   <li>the database refuses one change's data (a constraint, an encoding): the group is written again
 *       change by change, and the change it refuses is written without its per-recipient rows and with
 *       an error that says so; if even that is refused it is left out and logged. The others are
 *       recorded as they happened.</li>
 * </ul>
 * Thread safe; {@link #run()} is the writer thread's loop.
 */
final class GroupCommit implements Runnable {

    private static final Logger LOG = Logger.getLogger(GroupCommit.class.getName());

    /** Most changes one transaction holds (a group held for the commit delay may pass it by one submission). */
    static final int MAX_GROUP = 2000;

    static final Duration FIRST_RETRY = Duration.ofMillis(50);
    static final Duration LAST_RETRY = Duration.ofSeconds(2);

    /** Writes changes in one transaction of its own, and commits. */
    @FunctionalInterface
    interface Writer {
        /**
         * @param changes the changes, in order
         * @param verify  true when an earlier write of them may have committed unseen
         * @throws RuntimeException when the transaction did not commit (or may not have)
         */
        void write(List<Change> changes, boolean verify);
    }

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

    private final Writer writer;
    private final long delayNanos;
    /** Submitters by the time of their last submission ({@link System#nanoTime()}). */
    private final Map<Long, Long> lastSubmitted = new ConcurrentHashMap<>();
    private final BlockingQueue<Submission> waiting = new LinkedBlockingQueue<>();
    private volatile boolean stopped;
    private volatile Instant unavailableSince;
    private volatile Instant writingSince;
    private volatile long written;

    /** A journal that writes each group at once (no commit delay). */
    GroupCommit(Writer writer) {
        this(writer, Duration.ZERO);
    }

    /**
     * @param writer writes a group and commits
     * @param delay  the commit delay: how long a group may be held for other active submitters, 0 or more
     */
    GroupCommit(Writer writer, Duration delay) {
        this.writer = writer;
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
        return unavailableSince;
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
        while (!stopped || !waiting.isEmpty() && unavailableSince == null) {
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
            try {
                if (!writeRetrying(changes)) {
                    return false;
                }
            } catch (RuntimeException refused) {
                LOG.log(Level.WARNING, "the database refused a group of " + changes.size()
                        + " dispatch changes; writing them one by one", refused);
                for (Change change : changes) {
                    if (!writeAlone(change)) {
                        return false;
                    }
                }
            }
        } finally {
            writingSince = null;
        }
        written += changes.size();
        group.forEach(s -> s.ticket().future.complete(null));
        return true;
    }

    /** One change by itself; an attempt the database refuses is written once more without its recipients. */
    private boolean writeAlone(Change change) {
        try {
            return writeRetrying(List.of(change));
        } catch (RuntimeException refused) {
            if (change instanceof Change.Attempted attempted) {
                AttemptResult r = attempted.result();
                String why = "its outcome could not be recorded in full (" + rootMessage(refused) + ")";
                AttemptResult plain = r.withError(r.error() == null ? why : r.error() + "; " + why, List.of());
                try {
                    return writeRetrying(List.of(new Change.Attempted(plain)));
                } catch (RuntimeException again) {
                    LOG.log(Level.SEVERE, "mail " + r.mailId() + ": its attempt could not be recorded at all; its"
                            + " lease will run out and the mail will be treated as in doubt", again);
                    return true;
                }
            }
            LOG.log(Level.SEVERE, "a dispatch change was refused and is left out: " + change, refused);
            return true;
        }
    }

    /**
     * @return true when written, false when interrupted or stopped while the database was away
     * @throws RuntimeException when the database refuses the data (not a lost connection)
     */
    private boolean writeRetrying(List<Change> changes) {
        boolean verify = false;
        Duration pause = FIRST_RETRY;
        while (true) {
            try {
                writer.write(changes, verify);
                if (unavailableSince != null) {
                    Duration away = Duration.between(unavailableSince, Instant.now());
                    LOG.info(() -> "the database is back: dispatch changes recorded again after " + away.toMillis() + " ms");
                    unavailableSince = null;
                }
                return true;
            } catch (RuntimeException e) {
                boolean lost = StoreException.isConnectionFailure(e);
                if (!lost && !StoreException.isTransient(e)) {
                    throw e;
                }
                if (unavailableSince == null && lost) {
                    unavailableSince = Instant.now();
                    LOG.warning(() -> "the database is unavailable (" + rootMessage(e) + "); keeping "
                            + changes.size() + " dispatch changes and " + waiting.size()
                            + " waiting submissions, writing them again until it answers");
                }
                verify = true;
            }
            if (stopped) {
                LOG.warning(() -> "stopping with " + (changes.size() + waiting.size())
                        + " dispatch changes unwritten; their leases run out and the mails are treated as in doubt");
                return false;
            }
            try {
                Thread.sleep(pause.toMillis());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return false;
            }
            pause = pause.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : pause.multipliedBy(2);
        }
    }

    private static String rootMessage(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
