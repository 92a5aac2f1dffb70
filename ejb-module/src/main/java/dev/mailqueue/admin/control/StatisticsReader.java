package dev.mailqueue.admin.control;

import dev.mailqueue.account.control.AccountSettings;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.QueueStatistics;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.Utc;
import dev.mailqueue.queue.control.LogHours;
import dev.mailqueue.queue.control.StatusCounts;
import dev.mailqueue.queue.control.SuppressionStore;
import jakarta.persistence.EntityManager;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the queue's numbers with a handful of aggregate queries, none of which loads rows, and none of which reads
 * the history older than the current hour (issue 51): counts per status (the queue's rows, and the counts kept per
 * status for the mails out of the queue), one pass over the queue's rows for the mails queued per account, how
 * long the longest-due QUEUED mail has waited (one index probe per priority), and the figures of the last {@value #HOURS} clock hours from
 * the log counted per hour ({@link LogHours}): mails sent and failed per hour, attempts that sent and failed per
 * account, attempts in doubt, bounces, complaints. The five most frequent errors of mails that failed in those hours
 * are read from the log rows that failed a mail (the log's status index): they cost what the failures of a day
 * cost. Throughput is history: a mail that failed and was requeued since still failed in its hour. The statistics
 * endpoint, the dashboard and the queue-depth gauges all read from here.
 * <p>
 * "The last 24 hours" are clock hours, UTC: the current hour and the 23 before it, so between 23 and 24 hours.
 */
public final class StatisticsReader {

    /** Hours of throughput reported, the current one included. */
    public static final int HOURS = 24;

    /** Failure reasons reported. */
    static final int TOP_REASONS = 5;

    /** The name rows without an account count under: the default account's. */
    public static final String DEFAULT_ACCOUNT = AccountSettings.DEFAULT_ACCOUNTS;

    private StatisticsReader() {
    }

    /**
     * Reads the numbers; counts the log's hours that ended and are not counted yet first ({@link LogHours#read}),
     * which writes: call it in a transaction.
     *
     * @param em  the persistence context, in a transaction
     * @param now UTC now
     * @return the numbers now
     * @throws jakarta.persistence.PersistenceException when the database fails
     */
    public static QueueStatistics read(EntityManager em, LocalDateTime now) {
        LocalDateTime first = now.truncatedTo(ChronoUnit.HOURS).minusHours(HOURS - 1L);
        List<LogHours.Entry> log = LogHours.read(em, first, now);

        QueueStatistics stats = new QueueStatistics();
        stats.setGeneratedAt(Utc.toInstant(now));
        Map<String, long[]> queue = queueByAccount(em);
        long rows = 0;
        long claimed = 0;
        for (long[] n : queue.values()) {
            rows += n[0];
            claimed += n[1];
        }
        Map<String, Long> byName = new LinkedHashMap<>();
        countsByStatus(em, rows, claimed).forEach((status, n) -> byName.put(status.name(), n));
        stats.setCountsByStatus(byName);

        long[] sent = new long[HOURS];
        long[] failed = new long[HOURS];
        Map<String, long[]> byAccount = new TreeMap<>();
        queue.forEach((account, n) -> byAccount.computeIfAbsent(account, a -> new long[3])[0] += n[0] - n[1]);
        Map<AttemptOutcome, Long> outcomes = new EnumMap<>(AttemptOutcome.class);
        for (LogHours.Entry e : log) {
            int hour = (int) ChronoUnit.HOURS.between(first, e.hour());
            if (e.mailStatus() == MailStatus.SENT) {
                sent[hour] += e.entries();
            } else if (e.mailStatus() == MailStatus.FAILED) {
                failed[hour] += e.entries();
            }
            if (e.outcome() == AttemptOutcome.SENT || e.outcome() == AttemptOutcome.FAILED) {
                byAccount.computeIfAbsent(name(e.account()), a -> new long[3])[e.outcome() == AttemptOutcome.SENT ? 1 : 2]
                        += e.entries();
            }
            outcomes.merge(e.outcome(), e.entries(), Long::sum);
        }
        List<QueueStatistics.Hour> hours = new ArrayList<>(HOURS);
        for (int i = 0; i < HOURS; i++) {
            hours.add(new QueueStatistics.Hour(Utc.toInstant(first.plusHours(i)), sent[i], failed[i]));
        }
        stats.setHours(hours);
        if (byAccount.isEmpty()) {
            byAccount.put(DEFAULT_ACCOUNT, new long[3]);
        }
        List<QueueStatistics.Account> accounts = new ArrayList<>();
        byAccount.forEach((name, n) -> accounts.add(new QueueStatistics.Account(name, n[0], n[1], n[2])));
        stats.setAccounts(accounts);

        LocalDateTime oldest = longestDue(em, now);
        stats.setOldestQueuedSeconds(oldest == null ? null : Math.max(0, Duration.between(oldest, now).toSeconds()));
        stats.setTopFailureReasons(topFailureReasons(em, first));
        stats.setInDoubtLast24h(outcomes.getOrDefault(AttemptOutcome.IN_DOUBT, 0L));
        stats.setBouncedLast24h(outcomes.getOrDefault(AttemptOutcome.BOUNCED, 0L));
        stats.setComplainedLast24h(outcomes.getOrDefault(AttemptOutcome.COMPLAINED, 0L));
        stats.setSuppressionsByReason(suppressionsByReason(em));
        return stats;
    }

    /**
     * Two reads that cost the same at any size of history: the queue's rows, and the counts the statements that
     * change a status keep ({@link StatusCounts}, 96 rows).
     *
     * @return mails per status, every status present (0 when none), in declaration order: QUEUED and SENDING
     *         from the queue's rows (free or held by a claimer), the others from {@link StatusCounts#READ}
     */
    public static Map<MailStatus, Long> countsByStatus(EntityManager em) {
        Object[] queue = (Object[]) em.createNativeQuery("SELECT COUNT(*), COUNT(CLAIMER) FROM MAIL_QUEUE")
                .getSingleResult();
        return countsByStatus(em, ((Number) queue[0]).longValue(), ((Number) queue[1]).longValue());
    }

    /** @return {@link #countsByStatus(EntityManager)} for a queue of {@code rows} rows, {@code claimed} of them held */
    private static Map<MailStatus, Long> countsByStatus(EntityManager em, long rows, long claimed) {
        Map<MailStatus, Long> counts = new EnumMap<>(MailStatus.class);
        for (MailStatus status : MailStatus.values()) {
            counts.put(status, 0L);
        }
        counts.put(MailStatus.QUEUED, rows - claimed);
        counts.put(MailStatus.SENDING, claimed);
        counts.putAll(keptCounts(em));
        return counts;
    }

    /**
     * One read of {@link StatusCounts#READ} (96 rows), not of the queue: what a count of mails out of the queue
     * costs, e.g. the total of the console's FAILED page.
     *
     * @param em the persistence context
     * @return mails per status of {@link StatusCounts#COUNTED} (none live), a status with none absent
     */
    public static Map<MailStatus, Long> keptCounts(EntityManager em) {
        Map<MailStatus, Long> counts = new EnumMap<>(MailStatus.class);
        @SuppressWarnings("unchecked")
        List<Object[]> kept = em.createNativeQuery(StatusCounts.READ).getResultList();
        for (Object[] row : kept) {
            MailStatus status = MailStatus.valueOf((String) row[0]);
            if (StatusCounts.COUNTED.contains(status)) { // a live mail has its queue row: the queue counts it
                counts.put(status, ((Number) row[1]).longValue());
            }
        }
        return counts;
    }

    /**
     * One pass over the queue's rows: per account they are routed to (rows routed to none under the default
     * account's name), how many rows and how many of them a claimer holds.
     */
    private static Map<String, long[]> queueByAccount(EntityManager em) {
        Map<String, long[]> byAccount = new TreeMap<>();
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT SMTP_ACCOUNT, COUNT(*), COUNT(CLAIMER) FROM MAIL_QUEUE"
                + " GROUP BY SMTP_ACCOUNT").getResultList();
        for (Object[] row : rows) {
            long[] n = byAccount.computeIfAbsent(name(row[0]), a -> new long[2]);
            n[0] += ((Number) row[1]).longValue();
            n[1] += ((Number) row[2]).longValue();
        }
        return byAccount;
    }

    /**
     * @return when the free QUEUED mail that has been due longest became due (its DUE_AT: its enqueue time, or its
     *         not-before or retry time), or null when no free mail is due: the first due row of each priority on the
     *         claim index (V19: CLAIMER, PRIORITY, DUE_AT, or PRIORITY, DUE_AT where CLAIMER IS NULL), one probe a
     *         priority, {@link MailLimits#PRIORITY_MIN} to {@link MailLimits#PRIORITY_MAX}; mail not yet due is not read
     */
    static LocalDateTime longestDue(EntityManager em, LocalDateTime now) {
        StringBuilder sql = new StringBuilder("SELECT MIN(DUE) FROM (");
        for (int p = MailLimits.PRIORITY_MIN; p <= MailLimits.PRIORITY_MAX; p++) {
            sql.append(p == MailLimits.PRIORITY_MIN ? "" : " UNION ALL ")
                    .append("SELECT MIN(DUE_AT) AS DUE FROM MAIL_QUEUE WHERE CLAIMER IS NULL AND PRIORITY = ").append(p)
                    .append(" AND DUE_AT <= ?");
        }
        var query = em.createNativeQuery(sql.append(") D").toString());
        for (int i = 1; i <= MailLimits.PRIORITY_MAX - MailLimits.PRIORITY_MIN + 1; i++) {
            query.setParameter(i, Timestamp.valueOf(now));
        }
        return Utc.ofColumn(query.getSingleResult());
    }

    /** @return the most frequent errors of the log rows that failed a mail since {@code since} */
    private static List<QueueStatistics.Reason> topFailureReasons(EntityManager em, LocalDateTime since) {
        List<QueueStatistics.Reason> reasons = new ArrayList<>();
        for (Object[] row : em.createQuery("SELECT a.error, COUNT(a) AS n FROM MailAttempt a"
                        + " WHERE a.mailStatus = :failed AND a.finishedAt >= :since"
                        + " GROUP BY a.error ORDER BY n DESC", Object[].class)
                .setParameter("failed", MailStatus.FAILED).setParameter("since", since).setMaxResults(TOP_REASONS)
                .getResultList()) {
            reasons.add(new QueueStatistics.Reason((String) row[0], ((Number) row[1]).longValue()));
        }
        return reasons;
    }

    /**
     * @return suppression-list entries per reason, every reason present, in declaration order (the list has
     *         no entity: it is the suppression store's table, read here with one native query)
     */
    static Map<String, Long> suppressionsByReason(EntityManager em) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (SuppressionStore.Reason reason : SuppressionStore.Reason.values()) {
            counts.put(reason.name(), 0L);
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT REASON, COUNT(*) FROM SUPPRESSION GROUP BY REASON").getResultList();
        for (Object[] row : rows) {
            counts.put((String) row[0], ((Number) row[1]).longValue());
        }
        return counts;
    }

    private static String name(Object account) {
        return account == null ? DEFAULT_ACCOUNT : (String) account;
    }
}
