package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;

/**
 * The delivery events one recorded attempt publishes, as its log row carries them:
 * <ul>
 *   <li>when the server answered per recipient, each recipient's result is an event of its own: {@code sent} for
 *       one that accepted the mail and {@code refused} for one that refused it for good, with its own reply
 *       ({@link AttemptLog#eventOf});</li>
 *   <li>then the row's own event, for the mail as a whole (no recipient named), by its next state: {@code sent}
 *       when every recipient accepted at once (none was named above), {@code deferred} with the next attempt's
 *       time when it is queued again, {@code refused} when the server refused the whole mail for good (5yz),
 *       {@code failed} when its attempts ran out, {@code expired}, or {@code held} (in doubt, for an operator). A
 *       mail that some recipients accepted and others refused gets no mail-wide event: its recipients' events tell
 *       it all.</li>
 * </ul>
 */
final class AttemptEvents {

    private AttemptEvents() {
    }

    /**
     * @param verdict      how an attempt whose outcome is being recorded under its claimer's lease ended
     * @param perRecipient true when the attempt has a result per recipient
     * @param next         the mail's next status ({@link Transition#after})
     * @return the event of the mail as a whole, or null when its recipients' events tell it all
     */
    static EventType of(Verdict verdict, boolean perRecipient, dev.mailqueue.api.MailStatus next) {
        return switch (next) {
            case SENT -> perRecipient ? null : EventType.SENT;
            case QUEUED -> EventType.DEFERRED;
            case FAILED -> verdict == Verdict.PERMANENT ? (perRecipient ? null : EventType.REFUSED) : EventType.FAILED;
            case EXPIRED -> EventType.EXPIRED;
            case HELD -> EventType.HELD;
            default -> null;
        };
    }

    /** @return the event a taken-back lease's next state reports, or null for a plain return to the queue */
    static EventType ofLostLease(ExpiredLease lease, dev.mailqueue.api.MailStatus next) {
        if (!lease.inDoubt()) {
            return null;
        }
        return next == dev.mailqueue.api.MailStatus.HELD ? EventType.HELD : EventType.DEFERRED;
    }
}
