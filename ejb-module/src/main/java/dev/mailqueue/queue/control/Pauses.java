package dev.mailqueue.queue.control;

import java.util.List;
import java.util.Set;

/**
 * What the claim must leave alone now, as one query read it on the claim's connection
 * ({@link DispatchPauseStore#read}): everything when the queue is paused, else the mail of the paused
 * SMTP accounts and of the paused campaigns.
 *
 * @param queue     true when no mail is claimed at all
 * @param accounts  the paused SMTP accounts, by name
 * @param campaigns the paused campaigns, by name
 */
public record Pauses(boolean queue, Set<String> accounts, List<String> campaigns) {

    /** Nothing paused. */
    public static final Pauses NONE = new Pauses(false, Set.of(), List.of());

    /** Copies the collections. */
    public Pauses {
        accounts = Set.copyOf(accounts);
        campaigns = List.copyOf(campaigns);
    }
}
