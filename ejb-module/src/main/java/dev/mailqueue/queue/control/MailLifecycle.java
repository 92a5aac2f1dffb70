package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.mailqueue.api.MailStatus.CANCELLED;
import static dev.mailqueue.api.MailStatus.EXPIRED;
import static dev.mailqueue.api.MailStatus.FAILED;
import static dev.mailqueue.api.MailStatus.HELD;
import static dev.mailqueue.api.MailStatus.QUEUED;
import static dev.mailqueue.api.MailStatus.SENDING;
import static dev.mailqueue.api.MailStatus.SENT;
import static dev.mailqueue.api.MailStatus.SUPPRESSED;

/**
 * The life of a queued mail, in one place: its statuses ({@link MailStatus}), which change leads where, and every
 * set of statuses the rest of the queue asks about. Where a status is kept follows from it: a {@link #isLive live}
 * mail has a row in MAIL_QUEUE (QUEUED while it is free, SENDING while a claimer holds it); every other status is
 * the last status a row of the mail's log (MAIL_ATTEMPT.MAIL_STATUS) wrote, and the view MAIL_STATE reads both.
 *
 * <pre>
 *   enqueue ──▶ QUEUED ──claim──▶ SENDING ──▶ SENT | FAILED | EXPIRED | SUPPRESSED | HELD (in doubt)
 *      │          ▲  │              │
 *      │          │  └──cancel──▶ CANCELLED         SENDING ──retry, hand-back, release──▶ QUEUED
 *      └──▶ SUPPRESSED (every recipient suppressed) HELD ──cancel──▶ CANCELLED
 *   requeue (operator): FAILED | EXPIRED | HELD | CANCELLED ──▶ QUEUED
 * </pre>
 *
 * Every statement that changes a status runs in a store of this package and writes one of the transitions
 * {@link #allows} lists; {@code MailLifecycleTest} and the architecture test hold the rest of the code to it.
 * Stateless.
 */
public final class MailLifecycle {

    /** Live: the mail waits in the queue or is being sent; it changes on its own. */
    public static final Set<MailStatus> LIVE = Collections.unmodifiableSet(EnumSet.of(QUEUED, SENDING));

    /** Finished: the mail never changes again on its own, and retention deletes it after its days. */
    public static final Set<MailStatus> FINISHED = Collections.unmodifiableSet(
            EnumSet.of(SENT, FAILED, CANCELLED, EXPIRED, SUPPRESSED));

    /**
     * Deleted by the retention job once older than {@code mailqueue.retention.days}: every finished status,
     * SUPPRESSED included (the suppression list keeps the address, the mail that was not sent has nothing more to
     * say). HELD waits for an operator and is never deleted by retention, nor is live mail.
     */
    public static final Set<MailStatus> RETAINED_UNTIL_CUTOFF = FINISHED;

    /** An operator may cancel it: it waits (QUEUED) or waits for an operator (HELD). */
    public static final Set<MailStatus> CANCELLABLE = Collections.unmodifiableSet(EnumSet.of(QUEUED, HELD));

    /** A sender may cancel its own mail only while it waits. */
    public static final Set<MailStatus> CANCELLABLE_BY_SENDER = Collections.unmodifiableSet(EnumSet.of(QUEUED));

    /** An operator may put it back into the queue, with fresh attempts. */
    public static final Set<MailStatus> REQUEUEABLE = Collections.unmodifiableSet(
            EnumSet.of(FAILED, EXPIRED, HELD, CANCELLED));

    /** An operator may delete it: anything but a mail being sent, whose claimer still writes to it. */
    public static final Set<MailStatus> DELETABLE = Collections.unmodifiableSet(EnumSet.complementOf(EnumSet.of(SENDING)));

    /** Waiting, as the console counts it: in the queue, being sent, or held for an operator. */
    public static final Set<MailStatus> WAITING = Collections.unmodifiableSet(EnumSet.of(QUEUED, SENDING, HELD));

    /** A status a mail can have right after its enqueue. */
    public static final Set<MailStatus> AT_ENQUEUE = Collections.unmodifiableSet(EnumSet.of(QUEUED, SUPPRESSED));

    private static final Map<MailStatus, Set<MailStatus>> NEXT = new EnumMap<>(MailStatus.class);

    static {
        NEXT.put(QUEUED, EnumSet.of(SENDING, CANCELLED));
        NEXT.put(SENDING, EnumSet.of(QUEUED, SENT, FAILED, EXPIRED, SUPPRESSED, HELD));
        NEXT.put(HELD, EnumSet.of(QUEUED, CANCELLED));
        NEXT.put(FAILED, EnumSet.of(QUEUED));
        NEXT.put(EXPIRED, EnumSet.of(QUEUED));
        NEXT.put(CANCELLED, EnumSet.of(QUEUED));
        NEXT.put(SENT, EnumSet.noneOf(MailStatus.class));
        NEXT.put(SUPPRESSED, EnumSet.noneOf(MailStatus.class));
    }

    private MailLifecycle() {
    }

    /**
     * @param from a status
     * @param to   another
     * @return true when a mail may go from {@code from} to {@code to}
     */
    public static boolean allows(MailStatus from, MailStatus to) {
        return NEXT.get(from).contains(to);
    }

    /** @return the statuses a mail may go to from {@code from} */
    public static Set<MailStatus> next(MailStatus from) {
        return Collections.unmodifiableSet(NEXT.get(from));
    }

    /** @return true for QUEUED and SENDING: the mail has a row in MAIL_QUEUE */
    public static boolean isLive(MailStatus status) {
        return LIVE.contains(status);
    }

    /** @return true when the mail never changes again on its own ({@link #FINISHED}) */
    public static boolean isFinished(MailStatus status) {
        return FINISHED.contains(status);
    }

    /**
     * @param statuses some statuses
     * @return them as SQL string literals for an {@code IN (...)} list, e.g. {@code 'SENT', 'FAILED'}, in
     *         declaration order
     */
    public static String literals(Set<MailStatus> statuses) {
        return statuses.stream().sorted().map(s -> "'" + s.name() + "'").collect(Collectors.joining(", "));
    }

    /**
     * The condition, on a log row aliased {@code a} ({@code MAIL_ATTEMPT a}), that it is its mail's latest row that
     * records a status and that the mail is out of the queue: how the view {@code MAIL_STATE} tells the status of a
     * mail out of the queue, written so that a statement reading the log's status index need not work out every
     * mail's state. Shared by every statement that reads finished mails from the log (retention, the search by
     * finish time), so they agree on which mails are finished and in which status.
     */
    public static final String LATEST_STATUS_OUT_OF_QUEUE = "NOT EXISTS (SELECT 1 FROM MAIL_ATTEMPT b"
            + " WHERE b.MAIL_ID = a.MAIL_ID AND b.ID > a.ID AND b.MAIL_STATUS IS NOT NULL)"
            + " AND NOT EXISTS (SELECT 1 FROM MAIL_QUEUE q WHERE q.MAIL_ID = a.MAIL_ID)";
}
