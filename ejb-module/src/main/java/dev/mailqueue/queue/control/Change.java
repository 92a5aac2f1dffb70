package dev.mailqueue.queue.control;

import java.time.Instant;
import java.util.List;

/**
 * One change a claimer makes to the mails it holds, as {@link OutcomeStore#apply} writes it: each is
 * conditional on the row still being SENDING under the claimer's lease, so a claimer that lost its
 * lease never overwrites the new owner's row. Written in groups, each group in one short transaction
 * (group commit), in this order: lease renewals, send-started marks, attempts, hand-backs, releases.
 * One writer writes them all, so no two of these transactions ever wait for each other's rows.
 */
public sealed interface Change {

    /** @return the claimer that makes the change (its lease owner) */
    String owner();

    /**
     * The claimer lives: its leases run until {@code until}. Renewals go through the same writer as the
     * outcomes: a renewal in a transaction of its own locked a claimer's rows in another order than an
     * outcome group did, and the two deadlocked (Derby found it only after its 20 s deadlock timeout,
     * while a mail waited for its send-started mark).
     *
     * @param owner the claimer
     * @param ids   the mails it holds
     * @param until the new lease expiry
     */
    record Renewed(String owner, List<Long> ids, Instant until) implements Change {
    }

    /**
     * The claimer is about to send the mail: from when this is committed, a lease that runs out may
     * leave the mail in doubt. Cleared by the attempt's outcome.
     *
     * @param mailId the mail
     * @param owner  the claimer
     * @param at     when sending began
     */
    record SendStarted(long mailId, String owner, Instant at) implements Change {
    }

    /**
     * The outcome of one attempt (or of a mail that expired before one): the row's next state, one
     * attempt-log row (none for {@link Verdict#EXPIRED}), and the per-recipient rows it brings.
     *
     * @param result the attempt
     */
    record Attempted(AttemptResult result) implements Change {
        @Override
        public String owner() {
            return result.owner();
        }
    }

    /**
     * The mail goes back to the queue unsent, with its attempts untouched and nothing logged: a rate
     * limit or an unreachable account kept it back.
     *
     * @param mailId the mail
     * @param owner  the claimer
     * @param dueAt  when it is due again
     * @param note   what its last error says meanwhile, or null to keep the last error
     */
    record HandedBack(long mailId, String owner, Instant dueAt, String note) implements Change {
    }

    /**
     * The claimer ends: of its leased mails, those it never began to send go back to the queue as they
     * were. A mail whose send began and whose outcome is not recorded stays leased: its lease runs out
     * and whoever takes it back treats it as in doubt.
     *
     * @param owner the claimer
     * @param ids   the mails it may still hold
     */
    record Released(String owner, List<Long> ids) implements Change {
    }
}
