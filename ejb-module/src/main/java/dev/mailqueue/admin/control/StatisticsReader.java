package dev.mailqueue.admin.control;

import dev.mailqueue.account.control.AccountSettings;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.QueueStatistics;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.Utc;
import dev.mailqueue.queue.control.StatusCounts;
import dev.mailqueue.queue.control.SuppressionStore;
import jakarta.persistence.EntityManager;
import jakarta.persistence.TypedQuery;

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
 * Reads the queue's numbers with a handful of aggregate queries, none of which loads rows: counts per
 * status (the queue's rows, and the counts kept per status for the mails out of the queue), mails sent and failed per
 * hour (one pass each over the log rows that recorded that status, a CASE per hour, on the log's status index),
 * the oldest QUEUED mail, the five most frequent errors of mails that failed, the numbers per SMTP account, and
 * the attempts left in doubt. Throughput is history: a mail that failed and was requeued since still failed in
 * its hour. The statistics endpoint, the dashboard and the queue-depth gauges all read from here.
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
     * @param em  the persistence context
     * @param now UTC now
     * @return the numbers now
     */
    public static QueueStatistics read(EntityManager em, LocalDateTime now) {
        QueueStatistics stats = new QueueStatistics();
        stats.setGeneratedAt(Utc.toInstant(now));
        Map<MailStatus, Long> counts = countsByStatus(em);
        Map<String, Long> byName = new LinkedHashMap<>();
        counts.forEach((status, n) -> byName.put(status.name(), n));
        stats.setCountsByStatus(byName);

        LocalDateTime first = now.truncatedTo(ChronoUnit.HOURS).minusHours(HOURS - 1L);
        long[] sent = perHour(em, MailStatus.SENT, first);
        long[] failed = perHour(em, MailStatus.FAILED, first);
        List<QueueStatistics.Hour> hours = new ArrayList<>(HOURS);
        for (int i = 0; i < HOURS; i++) {
            hours.add(new QueueStatistics.Hour(Utc.toInstant(first.plusHours(i)), sent[i], failed[i]));
        }
        stats.setHours(hours);

        LocalDateTime oldest = time(em.createNativeQuery("SELECT MIN(CREATED_AT) FROM MAIL_QUEUE WHERE CLAIMER IS NULL")
                .getSingleResult());
        stats.setOldestQueuedSeconds(oldest == null ? null : Math.max(0, Duration.between(oldest, now).toSeconds()));
        stats.setTopFailureReasons(topFailureReasons(em, now.minusHours(HOURS)));
        stats.setAccounts(accounts(em, now.minusHours(HOURS)));
        stats.setInDoubtLast24h(inDoubt(em, now.minusHours(HOURS)));
        stats.setBouncedLast24h(attempts(em, AttemptOutcome.BOUNCED, now.minusHours(HOURS)));
        stats.setComplainedLast24h(attempts(em, AttemptOutcome.COMPLAINED, now.minusHours(HOURS)));
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
        Map<MailStatus, Long> counts = new EnumMap<>(MailStatus.class);
        for (MailStatus status : MailStatus.values()) {
            counts.put(status, 0L);
        }
        Object[] queue = (Object[]) em.createNativeQuery("SELECT COUNT(*), COUNT(CLAIMER) FROM MAIL_QUEUE")
                .getSingleResult();
        long claimed = ((Number) queue[1]).longValue();
        counts.put(MailStatus.QUEUED, ((Number) queue[0]).longValue() - claimed);
        counts.put(MailStatus.SENDING, claimed);
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(StatusCounts.READ).getResultList();
        for (Object[] row : rows) {
            MailStatus status = MailStatus.valueOf((String) row[0]);
            if (StatusCounts.COUNTED.contains(status)) { // a live mail has its queue row: counted above
                counts.put(status, ((Number) row[1]).longValue());
            }
        }
        return counts;
    }

    /**
     * @return per hour from {@code first} on ({@link #HOURS} of them), how many log rows set a mail's status to
     *         {@code status} in that hour; one query, one SUM(CASE) per hour
     */
    private static long[] perHour(EntityManager em, MailStatus status, LocalDateTime first) {
        StringBuilder jpql = new StringBuilder("SELECT ");
        for (int i = 0; i < HOURS; i++) {
            if (i > 0) {
                jpql.append(", ");
            }
            jpql.append("SUM(CASE WHEN a.finishedAt >= :h").append(i).append(" AND a.finishedAt < :h").append(i + 1)
                    .append(" THEN 1 ELSE 0 END)");
        }
        jpql.append(" FROM MailAttempt a WHERE a.mailStatus = :status AND a.finishedAt >= :h0");
        TypedQuery<Object[]> query = em.createQuery(jpql.toString(), Object[].class).setParameter("status", status);
        for (int i = 0; i <= HOURS; i++) {
            query.setParameter("h" + i, first.plusHours(i));
        }
        Object[] sums = query.getSingleResult();
        long[] result = new long[HOURS];
        for (int i = 0; i < HOURS; i++) {
            result[i] = sums[i] == null ? 0 : ((Number) sums[i]).longValue();
        }
        return result;
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
     * The numbers per SMTP account: QUEUED mails by the account they were routed to, and attempts that
     * sent or failed in the last {@value #HOURS} hours by the account that made them (after failover).
     * Rows from before accounts existed (no account) count for the default account.
     */
    static List<QueueStatistics.Account> accounts(EntityManager em, LocalDateTime since) {
        Map<String, long[]> byAccount = new TreeMap<>();
        @SuppressWarnings("unchecked")
        List<Object[]> queued = em.createNativeQuery("SELECT SMTP_ACCOUNT, COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER IS NULL"
                + " GROUP BY SMTP_ACCOUNT").getResultList();
        for (Object[] row : queued) {
            byAccount.computeIfAbsent(name(row[0]), n -> new long[3])[0] += ((Number) row[1]).longValue();
        }
        for (Object[] row : em.createQuery("SELECT a.smtpAccount, a.outcome, COUNT(a) FROM MailAttempt a"
                        + " WHERE a.finishedAt >= :since AND a.outcome IN :outcomes GROUP BY a.smtpAccount, a.outcome",
                        Object[].class)
                .setParameter("since", since).setParameter("outcomes", List.of(AttemptOutcome.SENT, AttemptOutcome.FAILED))
                .getResultList()) {
            AttemptOutcome outcome = (AttemptOutcome) row[1];
            byAccount.computeIfAbsent(name(row[0]), n -> new long[3])[outcome == AttemptOutcome.SENT ? 1 : 2]
                    += ((Number) row[2]).longValue();
        }
        if (byAccount.isEmpty()) {
            byAccount.put(DEFAULT_ACCOUNT, new long[3]);
        }
        List<QueueStatistics.Account> accounts = new ArrayList<>();
        byAccount.forEach((name, n) -> accounts.add(new QueueStatistics.Account(name, n[0], n[1], n[2])));
        return accounts;
    }

    /** @return attempts left in doubt by a dead worker (lease expired after sending began) since {@code since} */
    static long inDoubt(EntityManager em, LocalDateTime since) {
        return attempts(em, AttemptOutcome.IN_DOUBT, since);
    }

    /** @return attempt-log rows with this outcome since {@code since} */
    static long attempts(EntityManager em, AttemptOutcome outcome, LocalDateTime since) {
        return em.createQuery("SELECT COUNT(a) FROM MailAttempt a WHERE a.outcome = :outcome AND a.finishedAt >= :since",
                        Long.class)
                .setParameter("outcome", outcome).setParameter("since", since).getSingleResult();
    }

    /** @return a TIMESTAMP a native query read (as the driver hands it out), as UTC wall-clock time; null for null */
    static LocalDateTime time(Object value) {
        if (value instanceof Timestamp timestamp) {
            return timestamp.toLocalDateTime();
        }
        return (LocalDateTime) value;
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
