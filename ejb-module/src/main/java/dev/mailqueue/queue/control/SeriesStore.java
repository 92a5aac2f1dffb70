package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.api.SeriesBucket;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AttemptOutcome;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The console's chart data: per bucket of a range (the last one holding now), attempts that sent, failed
 * and were deferred, and the queue's depth at the bucket's end. Three queries, whatever the range and the
 * queue's size, each aggregating in the database (no row comes back per mail), each reading the log
 * (MAIL_ATTEMPT, insert only, so what happened in a bucket stays as it was):
 * <ol>
 *   <li>attempts per bucket of their end, by outcome: {@code SENT}; {@code FAILED} that failed its mail (its
 *       row recorded the mail FAILED) is <em>failed</em>, any other {@code FAILED} is <em>deferred</em> (tried
 *       again); reports that came back later and attempts left in doubt are not counted;</li>
 *   <li>mails waiting now ({@link MailLifecycle#WAITING}): the queue's rows (QUEUED, SENDING), and the mails out
 *       of the queue whose latest status row left them waiting (HELD);</li>
 *   <li>mails that began to wait per bucket (created, or requeued from a finished status) and mails that ended
 *       per bucket (a log row that recorded a {@link MailLifecycle#FINISHED} status: sent, failed, expired,
 *       cancelled, suppressed, each when it happened).</li>
 * </ol>
 * The depth at a bucket's end is then the depth now, less the mails that began to wait after it, plus those that
 * ended after it. It counts the rows still present: mails deleted (by retention or an operator) are in no
 * bucket. Mail suppressed at enqueue begins and ends at its creation, in one bucket: it never counts as waiting.
 * With an account, attempts count for the account that made them, mails for the account they are routed to (mail
 * routed to none for the default account). On PostgreSQL every part has an index to read by (the planner scans
 * instead when the range holds most rows): the log by the times of its rows (BRIN) or by status and time,
 * MAIL_MESSAGE by creation (BRIN); the queue is read whole (it holds only what waits).
 */
@ApplicationScoped
public class SeriesStore {

    /** A chart's range: how many buckets of how many seconds. */
    public enum Range {
        /** 60 one-minute buckets. */
        HOUR(60, 60),
        /** 168 one-hour buckets. */
        WEEK(168, 3600);

        private final int buckets;
        private final int seconds;

        Range(int buckets, int seconds) {
            this.buckets = buckets;
            this.seconds = seconds;
        }

        /** @return how many buckets */
        public int buckets() {
            return buckets;
        }

        /** @return a bucket's width in seconds */
        public int bucketSeconds() {
            return seconds;
        }

        /** @return the name the API uses, {@code hour} or {@code week} */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @return the range of that name ({@link #wireName()}), or empty */
        public static Optional<Range> of(String name) {
            for (Range range : values()) {
                if (range.wireName().equals(name)) {
                    return Optional.of(range);
                }
            }
            return Optional.empty();
        }

        /** @return the start of the first bucket: the last one holds {@code now} */
        public Instant firstStart(Instant now) {
            long last = Math.floorDiv(now.getEpochSecond(), seconds) * seconds;
            return Instant.ofEpochSecond(last - (long) (buckets - 1) * seconds);
        }
    }


    /** Waiting statuses a mail out of the queue can have (HELD): the latest status row of its log says it. */
    static final Set<MailStatus> WAITING_OUT_OF_QUEUE = waitingOutOfQueue();

    private static Set<MailStatus> waitingOutOfQueue() {
        Set<MailStatus> statuses = EnumSet.noneOf(MailStatus.class);
        statuses.addAll(MailLifecycle.WAITING);
        statuses.removeAll(MailLifecycle.LIVE);
        return Collections.unmodifiableSet(statuses);
    }

    /** The condition that log row {@code a} is the latest of its mail that recorded a status. */
    static final String LATEST_STATUS = "NOT EXISTS (SELECT 1 FROM MAIL_ATTEMPT n WHERE n.MAIL_ID = a.MAIL_ID"
            + " AND n.MAIL_STATUS IS NOT NULL AND n.ID > a.ID)";

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables, e.g. on a data source of a test
     * @return a store on them, for use outside a container
     */
    public static SeriesStore on(QueueTables tables) {
        SeriesStore store = new SeriesStore();
        store.tables = tables;
        return store;
    }

    /**
     * @param range          which buckets
     * @param account        an SMTP account, or null for all mail
     * @param defaultAccount true when {@code account} is the default one (which also sends mail routed to none)
     * @param now            now
     * @return the buckets, oldest first, the last one holding now
     * @throws StoreException when the database fails
     */
    public List<SeriesBucket> read(Range range, String account, boolean defaultAccount, Instant now) {
        int n = range.buckets();
        Instant first = range.firstStart(now);
        long[] sent = new long[n];
        long[] failed = new long[n];
        long[] deferred = new long[n];
        long[] created = new long[n];
        long[] ended = new long[n];
        long waiting = 0;
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            String mailAccount = accountCondition("m.SMTP_ACCOUNT", account, defaultAccount);
            String ofMail = account == null ? "" : " JOIN MAIL_MESSAGE m ON m.ID = a.MAIL_ID";
            // 1. attempts per bucket, by outcome and whether the attempt failed its mail
            String attempts = "SELECT b, OUTCOME, fin, COUNT(*) FROM (SELECT "
                    + d.bucketOf("a.FINISHED_AT", range.bucketSeconds()) + " AS b, a.OUTCOME AS OUTCOME,"
                    + " CASE WHEN a.MAIL_STATUS = '" + MailStatus.FAILED + "' THEN 1 ELSE 0 END AS fin FROM MAIL_ATTEMPT a"
                    + " WHERE a.FINISHED_AT >= ? AND a.OUTCOME IN ('" + AttemptOutcome.SENT + "', '" + AttemptOutcome.FAILED
                    + "')" + accountCondition("a.SMTP_ACCOUNT", account, defaultAccount) + ") x GROUP BY b, OUTCOME, fin";
            try (PreparedStatement s = c.prepareStatement(attempts)) {
                int i = 1;
                SqlTime.set(s, i++, first);
                SqlTime.set(s, i++, first);
                bindAccount(s, i, account);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        int bucket = clamp(r.getLong(1), n);
                        long count = r.getLong(4);
                        if (AttemptOutcome.SENT.name().equals(r.getString(2))) {
                            sent[bucket] += count;
                        } else if (r.getInt(3) == 1) {
                            failed[bucket] += count;
                        } else {
                            deferred[bucket] += count;
                        }
                    }
                }
            }
            // 2. mails waiting now: in the queue, and held
            String waitingNow = "SELECT COUNT(*) FROM MAIL_QUEUE q WHERE 1 = 1"
                    + accountCondition("q.SMTP_ACCOUNT", account, defaultAccount)
                    + " UNION ALL SELECT COUNT(*) FROM MAIL_ATTEMPT a" + ofMail + " WHERE a.MAIL_STATUS IN ("
                    + MailLifecycle.literals(WAITING_OUT_OF_QUEUE) + ") AND " + LATEST_STATUS
                    + " AND NOT EXISTS (SELECT 1 FROM MAIL_QUEUE q WHERE q.MAIL_ID = a.MAIL_ID)" + mailAccount;
            try (PreparedStatement s = c.prepareStatement(waitingNow)) {
                int i = bindAccount(s, 1, account);
                bindAccount(s, i, account);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        waiting += r.getLong(1);
                    }
                }
            }
            // 3. mails that began to wait (k = 1: created, or requeued from a finished status) and that ended
            //    (k = 2), per bucket
            String finished = MailLifecycle.literals(MailLifecycle.FINISHED);
            String changes = "SELECT k, b, COUNT(*) FROM (SELECT k, " + d.bucketOf("t", range.bucketSeconds())
                    + " AS b FROM ("
                    + "SELECT 1 AS k, CREATED_AT AS t FROM MAIL_MESSAGE WHERE CREATED_AT >= ?"
                    + accountCondition("SMTP_ACCOUNT", account, defaultAccount)
                    + " UNION ALL SELECT 2 AS k, a.FINISHED_AT AS t FROM MAIL_ATTEMPT a" + ofMail
                    + " WHERE a.MAIL_STATUS IN (" + finished + ") AND a.FINISHED_AT >= ?" + mailAccount
                    + " UNION ALL SELECT 1 AS k, a.FINISHED_AT AS t FROM MAIL_ATTEMPT a" + ofMail
                    + " WHERE a.MAIL_STATUS = '" + MailStatus.QUEUED + "' AND a.FINISHED_AT >= ? AND a.OUTCOME = '"
                    + AttemptOutcome.REQUEUED + "' AND EXISTS (SELECT 1 FROM MAIL_ATTEMPT p WHERE p.MAIL_ID = a.MAIL_ID"
                    + " AND p.MAIL_STATUS IN (" + finished + ") AND p.ID = (SELECT MAX(e.ID) FROM MAIL_ATTEMPT e"
                    + " WHERE e.MAIL_ID = a.MAIL_ID AND e.MAIL_STATUS IS NOT NULL AND e.ID < a.ID))" + mailAccount
                    + ") x) y GROUP BY k, b";
            try (PreparedStatement s = c.prepareStatement(changes)) {
                int i = 1;
                SqlTime.set(s, i++, first); // the buckets' start
                for (int part = 0; part < 3; part++) {
                    SqlTime.set(s, i++, first);
                    i = bindAccount(s, i, account);
                }
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        (r.getInt(1) == 1 ? created : ended)[clamp(r.getLong(2), n)] += r.getLong(3);
                    }
                }
            }
        } catch (SQLException e) {
            throw new StoreException("could not read the " + range.wireName() + " series"
                    + (account == null ? "" : " of account " + account), e);
        }
        return buckets(range, first, sent, failed, deferred, waiting, created, ended);
    }

    /**
     * @return the buckets, with each one's depth at its end: the depth now, less the mails that began to wait
     *         after it, plus those ended after it (never below 0)
     */
    static List<SeriesBucket> buckets(Range range, Instant first, long[] sent, long[] failed, long[] deferred, long waitingNow,
                                long[] created, long[] ended) {
        int n = range.buckets();
        long[] queued = new long[n];
        long depth = waitingNow;
        for (int i = n - 1; i >= 0; i--) {
            queued[i] = Math.max(0, depth);
            depth = depth - created[i] + ended[i];
        }
        List<SeriesBucket> buckets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            buckets.add(new SeriesBucket(first.plusSeconds((long) i * range.bucketSeconds()), sent[i], failed[i], deferred[i],
                    queued[i]));
        }
        return buckets;
    }

    /** @return a bucket's index; times after now (clocks of other servers) count for the last bucket */
    private static int clamp(long bucket, int n) {
        return (int) Math.max(0, Math.min(n - 1, bucket));
    }

    /** @return the condition on an account column, starting with " AND", or "" for all mail */
    private static String accountCondition(String column, String account, boolean defaultAccount) {
        if (account == null) {
            return "";
        }
        return defaultAccount ? " AND (" + column + " = ? OR " + column + " IS NULL)" : " AND " + column + " = ?";
    }

    private static int bindAccount(PreparedStatement s, int index, String account) throws SQLException {
        if (account == null) {
            return index;
        }
        s.setString(index, account);
        return index + 1;
    }
}
