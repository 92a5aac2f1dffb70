package dev.mailqueue.queue.control;

import java.time.Instant;
import java.util.List;

/**
 * One change a claimer makes to the mails it holds, as {@link OutcomeStore#apply} writes it: each is conditional
 * on the mail still being held by the claimer's lease (MAIL_QUEUE.CLAIMER), so a claimer that lost its lease never
 * overwrites the new holder's work. Written in groups, each group in one short transaction (group commit), in
 * this order: outcomes, hand-backs, releases (lease renewals are no change of a mail: {@link ClaimStore#renew}). One writer writes them all, so no two of these
 * transactions ever wait for each other's rows.
 */
public sealed interface Change {

    /** @return the claimer that makes the change */
    long claimer();

    /**
     * The outcome of one attempt (or of a mail that expired before one): the mail's next state and one row of
     * its log, with the per-recipient results it brings.
     *
     * @param result the attempt
     */
    record Attempted(AttemptResult result) implements Change {
        @Override
        public long claimer() {
            return result.lease().claimer();
        }
    }

    /**
     * The mail goes back to the queue unsent, with its attempts untouched and nothing logged: a rate limit or an
     * unreachable account kept it back.
     *
     * @param mailId  the mail
     * @param claimer the claimer
     * @param dueAt   when it is due again
     * @param note    what its last error says meanwhile, or null to keep the last one
     */
    record HandedBack(long mailId, long claimer, Instant dueAt, String note) implements Change {
    }

    /**
     * The claimer gives mails back that it never began to send: they go back to the queue as they were. When it
     * ends, its lease goes too, unless it still holds a mail (one whose outcome was never written): then the
     * lease runs out and whoever takes the mail back treats it as in doubt.
     *
     * @param claimer the claimer
     * @param ids     the mails it may still hold and never began
     * @param ended   true when the claimer ends
     */
    record Released(long claimer, List<Long> ids, boolean ended) implements Change {

        /** Copies the ids. */
        public Released {
            ids = List.copyOf(ids);
        }
    }
}
