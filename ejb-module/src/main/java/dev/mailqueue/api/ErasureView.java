package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An erasure as the admin API shows it: its receipt, kept for audit, which names no address.
 *
 * @param id             its id
 * @param requestedAt    when it was asked for
 * @param requestedBy    the operator's name
 * @param addresses      how many distinct addresses it named
 * @param upToMailId     the highest mail id when it was asked for: the mails it covers
 * @param jobExecutionId the latest execution of its {@code mail-erasure} job, or null before one started
 * @param jobStatus      that execution's batch status (STARTING, STARTED, COMPLETED, FAILED, ...), or UNKNOWN when
 *                       this server does not know it (the batch job repository is kept in memory: a restart of the
 *                       server forgets it)
 * @param completedAt    when the job completed, or null
 * @param counts         rows removed per kind, in lower case: mails, cancelled, log_rows, recipients, attachments,
 *                       raw_messages, webhook_deliveries, bounce_reports, suppressions
 */
public record ErasureView(long id, Instant requestedAt, String requestedBy, int addresses, long upToMailId,
                          Long jobExecutionId, String jobStatus, Instant completedAt, LinkedHashMap<String, Long> counts)
        implements Serializable {

    /** Most addresses one erasure names. */
    public static final int MAX_ADDRESSES = 100;

    /** The setting without which the queue refuses erasures: the key of erased addresses. */
    public static final String SECRET_SETTING = "mailqueue.erasure.secret";

    /** The shortest secret taken, characters. */
    public static final int MIN_SECRET_CHARS = 32;

    /** @return the counts, read only */
    public Map<String, Long> countsView() {
        return java.util.Collections.unmodifiableMap(counts);
    }
}
