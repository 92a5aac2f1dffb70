package dev.mailqueue.api;

import java.time.Instant;

/**
 * One bucket of the console's throughput chart: what happened to mail in one interval (a minute in the
 * {@code hour} range, an hour in the {@code week} range).
 *
 * @param start    its start, inclusive (its end is the next bucket's start)
 * @param sent     attempts that ended in it with the mail accepted, 0 or more
 * @param failed   attempts that ended in it and ended their mail FAILED, 0 or more
 * @param deferred other attempts that ended in it and failed (tried again later), 0 or more
 * @param queued   mails waiting (not yet ended) at its end; for the last bucket, now; 0 or more
 */
public record SeriesBucket(Instant start, long sent, long failed, long deferred, long queued) {
}
