package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.RecipientStatus;

import java.util.List;

/**
 * The delivery events one recorded attempt produces:
 * <ul>
 *   <li>when the server answered per recipient: {@code sent} for each recipient that accepted the mail and
 *       {@code refused} for each that refused it for good, with its own reply;</li>
 *   <li>then one for the mail as a whole (no recipient named), by its next state: {@code sent} when every
 *       recipient accepted at once (none was named above), {@code deferred} with the next attempt's time
 *       when it is queued again, {@code refused} when the server refused the whole mail for good (5yz),
 *       {@code failed} when its attempts ran out, {@code expired}, or {@code held} (in doubt, for an
 *       operator). A mail that some recipients accepted and others refused gets no mail-wide event: its
 *       recipients' events tell it all.</li>
 * </ul>
 */
final class AttemptEvents {

    private AttemptEvents() {
    }

    /**
     * @param a      an attempt whose outcome is being recorded under its claimer's lease
     * @param t      the mail's next state ({@link Transition#after})
     * @param events where the events are added, in order
     */
    static void of(AttemptResult a, Transition t, List<EventLog.Row> events) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (RecipientResult r : a.recipients()) {
            if (!seen.add(r.address().toLowerCase(java.util.Locale.ROOT))) {
                continue; // one recipient named twice in another case: one row, one event (as recordRecipients keeps)
            }
            EventType type = r.status() == RecipientStatus.SENT ? EventType.SENT
                    : r.status() == RecipientStatus.REFUSED ? EventType.REFUSED : null;
            if (type != null) {
                events.add(new EventLog.Row(a.mailId(), type, a.finishedAt(), r.address(), r.replyCode(),
                        r.enhancedStatus(), r.replyText(), null));
            }
        }
        boolean perRecipient = !a.recipients().isEmpty();
        EventType mailWide = switch (t.status()) {
            case SENT -> perRecipient ? null : EventType.SENT;
            case QUEUED -> EventType.DEFERRED;
            case FAILED -> a.verdict() == Verdict.PERMANENT ? (perRecipient ? null : EventType.REFUSED) : EventType.FAILED;
            case EXPIRED -> EventType.EXPIRED;
            case HELD -> EventType.HELD;
            default -> null;
        };
        if (mailWide != null) {
            String detail = mailWide == EventType.SENT ? a.replyText() : t.error();
            events.add(new EventLog.Row(a.mailId(), mailWide, a.finishedAt(), null, a.replyCode(), a.enhancedStatus(),
                    detail, mailWide == EventType.DEFERRED ? t.notBefore() : null));
        }
    }

    /** @return the event a taken-back lease's next state reports, or null for a plain return to the queue */
    static EventType ofLostLease(ExpiredLease lease, MailStatus next) {
        if (!lease.inDoubt()) {
            return null;
        }
        return next == MailStatus.HELD ? EventType.HELD : EventType.DEFERRED;
    }
}
