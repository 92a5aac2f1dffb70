package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.StoreException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes one group of the journal's changes ({@link GroupCommit}) until the database takes it:
 * <ul>
 *   <li>the database is unreachable (a lost connection, a restart): the group is kept, in order, and written again
 *       every {@link #FIRST_RETRY} to {@link #LAST_RETRY}, doubling, until it succeeds. A commit whose outcome is
 *       unknown is written again with {@code verify}, so nothing is logged twice;</li>
 *   <li>the database refuses one change's data (a constraint, an encoding): the group is written again change by
 *       change, and the change it refuses is written without its per-recipient rows and with an error that says
 *       so; if even that is refused it is left out and logged. The others are recorded as they happened.</li>
 * </ul>
 * Used by the journal's one writer thread.
 */
final class JournalWrites {

    private static final Logger LOG = Logger.getLogger(JournalWrites.class.getName());

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

    /** The first pause before a write is tried again. */
    static final Duration FIRST_RETRY = Duration.ofMillis(50);
    /** The longest pause between two tries of a write. */
    static final Duration LAST_RETRY = Duration.ofSeconds(2);

    private final Writer writer;
    private final BooleanSupplier stopped;
    private final IntSupplier backlog;
    private volatile Instant unavailableSince;

    /**
     * @param writer  writes changes in one transaction and commits
     * @param stopped true once the journal stops: a write that waits for the database gives up
     * @param backlog how many submissions wait behind the group (for the log)
     */
    JournalWrites(Writer writer, BooleanSupplier stopped, IntSupplier backlog) {
        this.writer = writer;
        this.stopped = stopped;
        this.backlog = backlog;
    }

    /** @return since when writes fail for want of the database, or null while they succeed */
    Instant unavailableSince() {
        return unavailableSince;
    }

    /**
     * @param changes one group, in order
     * @return true when written (or what the database refused left out and logged); false when interrupted or
     *         stopped while the database was away
     */
    boolean write(List<Change> changes) {
        try {
            return writeRetrying(changes);
        } catch (RuntimeException refused) {
            LOG.log(Level.WARNING, "the database refused a group of " + changes.size()
                    + " dispatch changes; writing them one by one", refused);
            for (Change change : changes) {
                if (!writeAlone(change)) {
                    return false;
                }
            }
            return true;
        }
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
                            + changes.size() + " dispatch changes and " + backlog.getAsInt()
                            + " waiting submissions, writing them again until it answers");
                }
                verify = true;
            }
            if (stopped.getAsBoolean()) {
                LOG.warning(() -> "stopping with " + (changes.size() + backlog.getAsInt())
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
