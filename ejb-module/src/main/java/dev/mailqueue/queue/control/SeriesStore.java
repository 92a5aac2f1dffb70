package dev.mailqueue.queue.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The console's chart data: per bucket of a range (the last one holding now), attempts that sent, failed
 * and were deferred, and the queue's depth at the bucket's end. Four queries, whatever the range and the
 * queue's size, each aggregating in the database (no row comes back per mail):
 * <ol>
 *   <li>attempts per bucket of their end, by outcome: {@code SENT}; {@code FAILED} that ended its mail (the
 *       mail is FAILED and this was its last attempt) is <em>failed</em>, any other {@code FAILED} is
 *       <em>deferred</em> (tried again, or requeued since); reports that came back later and attempts left
 *       in doubt are not counted;</li>
 *   <li>mails not yet ended now (QUEUED, SENDING, HELD);</li>
 *   <li>and 4. (one statement) mails created per bucket, and mails that ended per bucket: SENT at their
 *       sent-at, FAILED at the end of their last attempt, EXPIRED when the claim that found them expired
 *       took them (else at their expiry), SUPPRESSED at the claim that found nobody left, CANCELLED at
 *       their {@code cancelled} event (else at their creation).</li>
 * </ol>
 * The depth at a bucket's end is then the depth now, less the mails created after it, plus those that
 * ended after it. It counts the rows still present: mails deleted (by retention or an operator) are in
 * no bucket, and a mail requeued since counts as waiting from its creation on. Mail suppressed at
 * enqueue never waited and is left out. With an account, attempts count for the account that made them,
 * mails for the account they are routed to (mail routed to none for the default account).
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

    /**
     * One bucket.
     *
     * @param start    its start, inclusive (its end is the next one's start)
     * @param sent     attempts that ended in it with the mail accepted
     * @param failed   attempts that ended in it and ended their mail FAILED
     * @param deferred other attempts that ended in it and failed (tried again later)
     * @param queued   mails waiting (not yet ended) at its end; for the last bucket, now
     */
    public record Bucket(Instant start, long sent, long failed, long deferred, long queued) {
    }

    /**
     * Mails not yet ended, one count per status, each by an index on every database (a SENDING row always
     * has a lease: PostgreSQL's lease index holds only rows with one).
     */
    static final String WAITING_NOW = "SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'QUEUED'%1$s"
            + " UNION ALL SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'SENDING' AND LEASE_EXPIRES_AT IS NOT NULL%1$s"
            + " UNION ALL SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'HELD'%1$s";

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
    public List<Bucket> read(Range range, String account, boolean defaultAccount, Instant now) {
        int n = range.buckets();
        Instant first = range.firstStart(now);
        long[] sent = new long[n];
        long[] failed = new long[n];
        long[] deferred = new long[n];
        long[] created = new long[n];
        long[] ended = new long[n];
        long waiting = 0;
        try (Connection c = tables.connect()) {
            Dialect d = tables.dialect(c);
            String mailAccount = accountCondition("m.SMTP_ACCOUNT", account, defaultAccount);
            String plain = accountCondition("SMTP_ACCOUNT", account, defaultAccount);
            // 1. attempts per bucket, by outcome and whether the attempt ended its mail FAILED
            String attempts = "SELECT b, OUTCOME, fin, COUNT(*) FROM (SELECT "
                    + d.kind().bucketOf("a.FINISHED_AT", range.bucketSeconds()) + " AS b, a.OUTCOME AS OUTCOME,"
                    + " CASE WHEN a.OUTCOME = 'FAILED' AND m.STATUS = 'FAILED' AND a.STARTED_AT = m.LAST_ATTEMPT_AT"
                    + " THEN 1 ELSE 0 END AS fin FROM MAIL_ATTEMPT a JOIN MAIL_MESSAGE m ON m.ID = a.MAIL_ID"
                    + " WHERE a.FINISHED_AT >= ? AND a.OUTCOME IN ('SENT', 'FAILED')"
                    + accountCondition("a.SMTP_ACCOUNT", account, defaultAccount) + ") x GROUP BY b, OUTCOME, fin";
            try (PreparedStatement s = c.prepareStatement(attempts)) {
                int i = 1;
                SqlTime.set(s, i++, first);
                SqlTime.set(s, i++, first);
                bindAccount(s, i, account);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        int bucket = clamp(r.getLong(1), n);
                        long count = r.getLong(4);
                        if ("SENT".equals(r.getString(2))) {
                            sent[bucket] += count;
                        } else if (r.getInt(3) == 1) {
                            failed[bucket] += count;
                        } else {
                            deferred[bucket] += count;
                        }
                    }
                }
            }
            // 2. mails not yet ended, now
            try (PreparedStatement s = c.prepareStatement(WAITING_NOW.formatted(plain))) {
                int i = 1;
                for (int part = 0; part < 3; part++) {
                    i = bindAccount(s, i, account);
                }
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        waiting += r.getLong(1);
                    }
                }
            }
            // 3. and 4. mails created and mails ended, per bucket
            String cancelledAt = "COALESCE((SELECT MAX(e.OCCURRED_AT) FROM MAIL_EVENT e WHERE e.MAIL_ID = m.ID"
                    + " AND e.EVENT_TYPE = 'CANCELLED'), m.CREATED_AT)";
            String changes = "SELECT k, b, COUNT(*) FROM (SELECT k, " + d.kind().bucketOf("t", range.bucketSeconds())
                    + " AS b FROM ("
                    + "SELECT 1 AS k, CREATED_AT AS t FROM MAIL_MESSAGE WHERE CREATED_AT >= ?"
                    + " AND (STATUS <> 'SUPPRESSED' OR CLAIMED_AT IS NOT NULL)" + plain
                    + " UNION ALL SELECT 2 AS k, SENT_AT AS t FROM MAIL_MESSAGE WHERE STATUS = 'SENT' AND SENT_AT >= ?" + plain
                    + " UNION ALL SELECT 2 AS k, a.FINISHED_AT AS t FROM MAIL_ATTEMPT a JOIN MAIL_MESSAGE m ON m.ID = a.MAIL_ID"
                    + " WHERE a.FINISHED_AT >= ? AND a.OUTCOME = 'FAILED' AND m.STATUS = 'FAILED'"
                    + " AND a.STARTED_AT = m.LAST_ATTEMPT_AT" + mailAccount
                    + " UNION ALL SELECT 2 AS k, CASE m.STATUS WHEN 'EXPIRED' THEN COALESCE(m.CLAIMED_AT, m.EXPIRES_AT, m.CREATED_AT)"
                    + " WHEN 'SUPPRESSED' THEN m.CLAIMED_AT ELSE " + cancelledAt + " END AS t FROM MAIL_MESSAGE m"
                    + " WHERE m.STATUS IN ('EXPIRED', 'CANCELLED', 'SUPPRESSED')"
                    + " AND (m.STATUS <> 'SUPPRESSED' OR m.CLAIMED_AT IS NOT NULL)" + mailAccount
                    + ") x WHERE t >= ?) y GROUP BY k, b";
            try (PreparedStatement s = c.prepareStatement(changes)) {
                int i = 1;
                SqlTime.set(s, i++, first); // the buckets' start
                SqlTime.set(s, i++, first);
                i = bindAccount(s, i, account);
                SqlTime.set(s, i++, first);
                i = bindAccount(s, i, account);
                SqlTime.set(s, i++, first);
                i = bindAccount(s, i, account);
                i = bindAccount(s, i, account);
                SqlTime.set(s, i, first);
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
     * @return the buckets, with each one's depth at its end: the depth now, less the mails created after
     *         it, plus those ended after it (never below 0)
     */
    static List<Bucket> buckets(Range range, Instant first, long[] sent, long[] failed, long[] deferred, long waitingNow,
                                long[] created, long[] ended) {
        int n = range.buckets();
        long[] queued = new long[n];
        long depth = waitingNow;
        for (int i = n - 1; i >= 0; i--) {
            queued[i] = Math.max(0, depth);
            depth = depth - created[i] + ended[i];
        }
        List<Bucket> buckets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            buckets.add(new Bucket(first.plusSeconds((long) i * range.bucketSeconds()), sent[i], failed[i], deferred[i],
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
