package dev.mailqueue.retention.control;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The times the retention job's content step works between: its cutoff (a finished mail loses its content once
 * {@code mailqueue.retention.content-days} old, {@link RetentionPolicy#cutoff}) and the earliest finish time it
 * reads from. That is a day before the last complete run's cutoff (a log row may commit a little after the time it
 * records), but never before the mail cutoff ({@code mailqueue.retention.days}): the job's first step deletes
 * every mail finished before that.
 *
 * @param mail    mails finished before this are deleted by the job's first step
 * @param content mails finished before this lose their content; equal to or before {@code mail}: nothing to do
 */
public record ContentCutoffs(Instant mail, Instant content) {

    /** The span of finish times one query reads. */
    static final Duration HOUR = Duration.ofHours(1);

    /** How far before the last run's cutoff a run reads again: for log rows committed after that run. */
    static final Duration SLACK = Duration.ofDays(1);

    /**
     * @param now         now
     * @param days        {@code mailqueue.retention.days}, 1 or more
     * @param contentDays {@code mailqueue.retention.content-days}, 1 or more
     * @return the cutoffs of a run starting now
     */
    public static ContentCutoffs of(Instant now, int days, int contentDays) {
        return new ContentCutoffs(RetentionPolicy.cutoff(now, days), RetentionPolicy.cutoff(now, contentDays));
    }

    /** @return whether content goes before the mail does: {@code content-days} below {@code days} */
    public boolean removesContent() {
        return content.isAfter(mail);
    }

    /**
     * @param reached the cutoff of the last complete run (1970-01-01 before the first)
     * @return the start of the first hour to read: the whole hour at or before the later of {@code reached} less a
     *         day and the mail cutoff
     */
    public Instant firstHour(Instant reached) {
        Instant from = reached.minus(SLACK);
        return (from.isAfter(mail) ? from : mail).truncatedTo(ChronoUnit.HOURS);
    }

    static Instant earlier(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
