package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.Utc;
import jakarta.persistence.EntityManager;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The mail log (MAIL_ATTEMPT) counted per clock hour, so that a figure of the last hours costs the same at a
 * thousand mails a day as at a million (issue 51): an hour that has ended is read from MAIL_LOG_HOUR (a few rows),
 * and only the hours not counted yet (the current one, and the one before it for {@link #SETTLE} minutes) from
 * the log. Each entry counts the log rows of one hour with one combination of the columns the statistics
 * ({@code admin.control.StatisticsReader}) are made of: the status the row set, its outcome and the SMTP account
 * that made the attempt.
 * <p>
 * Counting is done here, when the figures are read, not by the statements that write the log (the dispatch path
 * writes nothing more). The hours that ended at least {@link #SETTLE} before now and are not counted yet are counted
 * from the log, each once: the reader that moves MAIL_LOG_HOUR_MARK's {@code COUNTED_UNTIL} from the value it read
 * (a compare-and-set {@code UPDATE}, which makes a second reader wait for the first's commit and then find the value
 * moved) counts them in the same transaction. Call {@link #read} before any other read of the transaction, so that
 * a database whose snapshot starts at the first read (MariaDB) sees what the other reader committed.
 * <p>
 * A log row whose transaction commits more than {@link #SETTLE} after its {@code FINISHED_AT} (or that a server
 * whose clock lags by more wrote) falls in an hour already counted and is missing from these figures; the mails'
 * own logs and the counts per status ({@link StatusCounts}) still have it.
 * Transactions end within the server's transaction timeout (120 s by default), well inside it.
 */
public final class LogHours {

    /** How long after its end an hour is counted: the time its last transactions have to commit. */
    public static final Duration SETTLE = Duration.ofMinutes(5);

    /** The log's rows of one hour, counted by what they recorded. */
    private static final String COUNT = "SELECT MAIL_STATUS, OUTCOME, SMTP_ACCOUNT, COUNT(*) FROM MAIL_ATTEMPT"
            + " WHERE FINISHED_AT >= ? AND FINISHED_AT < ? GROUP BY MAIL_STATUS, OUTCOME, SMTP_ACCOUNT";

    private LogHours() {
    }

    /**
     * Log rows of one hour that recorded the same status, outcome and account.
     *
     * @param hour       the hour's start, UTC, whole hours
     * @param mailStatus the status the rows set, or null for rows that set none (a deferral, a bounce report)
     * @param outcome    their outcome
     * @param account    the SMTP account that made the attempts, or null for none (a change, a report, a row from
     *                   before accounts existed)
     * @param entries    how many, 1 or more
     */
    public record Entry(LocalDateTime hour, MailStatus mailStatus, AttemptOutcome outcome, String account,
                        long entries) {
    }

    /**
     * Counts the hours not counted yet that ended at least {@link #SETTLE} before {@code now} (those from {@code from}
     * on: older ones are never read) and forgets those before {@code from}; then reads every hour from {@code from}
     * to {@code now}'s, the counted ones from MAIL_LOG_HOUR, the others from the log. Writes when it counts: call it
     * in a transaction, first.
     *
     * @param em   the persistence context, in a transaction
     * @param from the first hour wanted, UTC, whole hours; at most {@code now}
     * @param now  UTC now
     * @return the entries of each hour from {@code from} to the one holding {@code now}, in no particular order; an
     *         hour or a combination with no log row has none
     * @throws IllegalArgumentException when {@code from} is not a whole hour or is after {@code now}
     * @throws jakarta.persistence.PersistenceException when the database fails
     */
    public static List<Entry> read(EntityManager em, LocalDateTime from, LocalDateTime now) {
        if (!from.truncatedTo(ChronoUnit.HOURS).equals(from) || from.isAfter(now)) {
            throw new IllegalArgumentException("from must be a whole hour at or before now: " + from);
        }
        LocalDateTime settled = now.minus(SETTLE).truncatedTo(ChronoUnit.HOURS);
        LocalDateTime counted = countedUntil(em);
        if (counted.isBefore(settled)) {
            if (moveMark(em, counted, settled)) {
                for (LocalDateTime hour = later(counted, from); hour.isBefore(settled); hour = hour.plusHours(1)) {
                    keep(em, hour, count(em, hour));
                }
                em.createNativeQuery("DELETE FROM MAIL_LOG_HOUR WHERE HOUR_START < ?")
                        .setParameter(1, Timestamp.valueOf(from)).executeUpdate();
                counted = settled;
            } else {
                counted = countedUntil(em); // another reader moved it meanwhile, and counted
            }
        }
        List<Entry> entries = new ArrayList<>();
        @SuppressWarnings("unchecked")
        List<Object[]> kept = em.createNativeQuery("SELECT HOUR_START, MAIL_STATUS, OUTCOME, SMTP_ACCOUNT, ENTRIES"
                        + " FROM MAIL_LOG_HOUR WHERE HOUR_START >= ? AND HOUR_START < ?")
                .setParameter(1, Timestamp.valueOf(from)).setParameter(2, Timestamp.valueOf(counted)).getResultList();
        for (Object[] row : kept) {
            entries.add(new Entry(Utc.ofColumn(row[0]), status((String) row[1]),
                    AttemptOutcome.valueOf((String) row[2]), account((String) row[3]), ((Number) row[4]).longValue()));
        }
        LocalDateTime last = now.truncatedTo(ChronoUnit.HOURS);
        for (LocalDateTime hour = later(counted, from); !hour.isAfter(last); hour = hour.plusHours(1)) {
            entries.addAll(count(em, hour));
        }
        return entries;
    }

    /** @return MAIL_LOG_HOUR_MARK's COUNTED_UNTIL: the hours before it are counted */
    private static LocalDateTime countedUntil(EntityManager em) {
        return Utc.ofColumn(em.createNativeQuery("SELECT COUNTED_UNTIL FROM MAIL_LOG_HOUR_MARK WHERE ID = 1")
                .getSingleResult());
    }

    /** @return true when this transaction moved the mark from {@code counted} to {@code settled}, and is to count */
    private static boolean moveMark(EntityManager em, LocalDateTime counted, LocalDateTime settled) {
        return em.createNativeQuery("UPDATE MAIL_LOG_HOUR_MARK SET COUNTED_UNTIL = ? WHERE ID = 1 AND COUNTED_UNTIL = ?")
                .setParameter(1, Timestamp.valueOf(settled)).setParameter(2, Timestamp.valueOf(counted))
                .executeUpdate() == 1;
    }

    /** Writes an hour's entries into MAIL_LOG_HOUR, '' for a null status or account (a few rows an hour). */
    private static void keep(EntityManager em, LocalDateTime hour, List<Entry> entries) {
        for (Entry entry : entries) {
            em.createNativeQuery("INSERT INTO MAIL_LOG_HOUR (HOUR_START, MAIL_STATUS, OUTCOME, SMTP_ACCOUNT, ENTRIES)"
                            + " VALUES (?, ?, ?, ?, ?)")
                    .setParameter(1, Timestamp.valueOf(hour))
                    .setParameter(2, entry.mailStatus() == null ? "" : entry.mailStatus().name())
                    .setParameter(3, entry.outcome().name())
                    .setParameter(4, entry.account() == null ? "" : entry.account())
                    .setParameter(5, entry.entries()).executeUpdate();
        }
    }

    /** @return the log's rows of the hour from {@code hour}, counted: one query, on the log's time index */
    private static List<Entry> count(EntityManager em, LocalDateTime hour) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(COUNT).setParameter(1, Timestamp.valueOf(hour))
                .setParameter(2, Timestamp.valueOf(hour.plusHours(1))).getResultList();
        List<Entry> entries = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            entries.add(new Entry(hour, row[0] == null ? null : MailStatus.valueOf((String) row[0]),
                    AttemptOutcome.valueOf((String) row[1]), (String) row[2], ((Number) row[3]).longValue()));
        }
        return entries;
    }

    private static LocalDateTime later(LocalDateTime a, LocalDateTime b) {
        return a.isAfter(b) ? a : b;
    }

    private static MailStatus status(String stored) {
        return stored.isEmpty() ? null : MailStatus.valueOf(stored);
    }

    private static String account(String stored) {
        return stored.isEmpty() ? null : stored;
    }
}
