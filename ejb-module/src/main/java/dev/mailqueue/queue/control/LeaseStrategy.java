package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailLimits;
import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a claim picks and takes due mail on one kind of database, in the claim's transaction. A mail is taken by
 * writing its claimer into its MAIL_QUEUE row (one narrow write per mail, none to the mail itself). Three ways,
 * all pessimistic (a row is taken under its write lock):
 * <ul>
 *   <li>PostgreSQL: one statement, {@code UPDATE ... WHERE MAIL_ID = ANY (ARRAY(SELECT ... FOR UPDATE SKIP
 *       LOCKED)) RETURNING}: concurrent claimers on any number of servers take disjoint rows and never wait for each
 *       other;</li>
 *   <li>MariaDB (10.6+): the same in two statements, as it neither updates with a LIMIT subquery nor returns
 *       updated rows: {@code SELECT ... FOR UPDATE SKIP LOCKED}, then the UPDATE of exactly those rows;</li>
 *   <li>elsewhere (Derby; SQL Server and Oracle, untested) the candidates are read in order and each is taken by
 *       its own {@code UPDATE ... WHERE MAIL_ID = ? AND CLAIMER IS NULL}, in id order: the update takes the row's
 *       write lock, and a claimer that raced for the same row waits for the winner's commit, then finds it taken
 *       and leaves it (its update count is 0). Id order keeps two claimers from waiting for each other in a
 *       cycle.</li>
 * </ul>
 */
abstract class LeaseStrategy {

    /**
     * The free due mail of one priority, in no order, e.g. to count it; {@code %s}: the account filter. {@code ?}s:
     * the priority, now. One range of the claim index ({@code mail_queue_claim_ix}: priority, due time), so that
     * neither a claim nor a count reads mail not yet due (V19).
     */
    static final String DUE_UNORDERED = "SELECT MAIL_ID FROM MAIL_QUEUE WHERE CLAIMER IS NULL AND PRIORITY = ?"
            + " AND DUE_AT <= ?%s";

    /** The free due mail of one priority, the longest due first; as {@link #DUE_UNORDERED}. */
    static final String DUE = DUE_UNORDERED + " ORDER BY DUE_AT, MAIL_ID";

    /**
     * @param kind the database
     * @return how to claim on it
     */
    static LeaseStrategy of(DatabaseKind kind) {
        return switch (kind) {
            case POSTGRESQL -> new OneStatement();
            case MARIADB -> new SkipLocked();
            default -> new GuardedUpdates(kind);
        };
    }

    /**
     * @return true when claims of one JVM must run one at a time: without SKIP LOCKED, Derby's read of the due
     *         rows waits for rows another claimer has just taken, while that claimer's updates may wait for rows
     *         the first has taken, and the two deadlock. One at a time, a claim only ever waits for a commit that
     *         needs nothing from it. (Derby is embedded: its claimers are all in this JVM.)
     */
    boolean oneAtATimeInThisJvm() {
        return false;
    }

    /**
     * Takes up to {@code limit} free due mails for a claimer: the best first, by priority (highest first), then by the
     * time they became due (their DUE_AT: enqueue, not-before or retry time), then by id. One pick per priority, from
     * {@link MailLimits#PRIORITY_MAX} down, until the limit is reached: each reads the due rows of its priority's range
     * of the claim index and no others.
     *
     * @param connection the claim transaction's connection
     * @param lease      the claimer
     * @param claimNo    which claim of the claimer this is: with the send order ({@link ClaimedMailReader#read}),
     *                   the order its mails are sent in
     * @param now        now: due means DUE_AT &lt;= now
     * @param limit      most mails to take, 1 or more
     * @param accounts   which accounts' (and campaigns') mails to leave alone
     * @return the ids taken; empty when none are due (or all due ones are held by other claimers)
     * @throws SQLException when the database refuses, e.g. a lock timeout
     */
    final List<Long> lease(Connection connection, Lease lease, int claimNo, Instant now, int limit,
                           AccountFilter accounts) throws SQLException {
        List<Long> ids = new ArrayList<>();
        for (int priority = MailLimits.PRIORITY_MAX; priority >= MailLimits.PRIORITY_MIN && ids.size() < limit;
             priority--) {
            ids.addAll(lease(connection, lease, claimNo, priority, now, limit - ids.size(), accounts));
        }
        return ids;
    }

    /**
     * Takes up to {@code limit} free due mails of one priority, the longest due first ({@link #DUE}).
     *
     * @param priority {@link MailLimits#PRIORITY_MIN} to {@link MailLimits#PRIORITY_MAX}
     * @return the ids taken; empty when none of this priority are due (or all are held by other claimers)
     * @throws SQLException when the database refuses, e.g. a lock timeout
     * @see #lease(Connection, Lease, int, Instant, int, AccountFilter)
     */
    abstract List<Long> lease(Connection connection, Lease lease, int claimNo, int priority, Instant now, int limit,
                              AccountFilter accounts) throws SQLException;

    /**
     * Takes up to {@code limit} mails, at most its cap of each capped account's ({@link AccountFilter#capping}):
     * one pick per capped account, then one for the rest. All carry the same claim number; the send order within
     * the claim is the order of {@link ClaimedMailReader#read} (priority, age), the same wherever the rows came from.
     */
    final List<Long> leaseCapped(Connection c, Lease lease, int claimNo, Instant now, int limit, AccountFilter filter)
            throws SQLException {
        if (filter.caps().isEmpty()) {
            return lease(c, lease, claimNo, now, limit, filter);
        }
        List<Long> ids = new ArrayList<>();
        for (Map.Entry<String, Integer> cap : new TreeMap<>(filter.caps()).entrySet()) {
            AccountFilter one = filter.only(cap.getKey());
            if (ids.size() < limit && !one.claimsNothing()) {
                ids.addAll(lease(c, lease, claimNo, now, Math.min(cap.getValue(), limit - ids.size()), one));
            }
        }
        AccountFilter rest = filter.uncapped();
        if (ids.size() < limit && !rest.claimsNothing()) {
            ids.addAll(lease(c, lease, claimNo, now, limit - ids.size(), rest));
        }
        return ids;
    }

    /**
     * Readies a claim's transaction before its first statement; nothing here, see {@link OneStatement#planForKeys}.
     *
     * @param connection the claim transaction's connection
     * @throws SQLException when the database refuses
     */
    void planForKeys(Connection connection) throws SQLException {
    }

    /**
     * PostgreSQL: pick and take in one statement, planned to walk the claim index ({@code mail_queue_claim_ix}) in
     * its order and stop at the limit, whatever the statistics say ({@link #planForKeys}).
     */
    static final class OneStatement extends LeaseStrategy {

        /**
         * The planner settings of a claim's transaction: index scans and nested loops only, no sort where an index
         * gives the order, no JIT.
         */
        static final String KEY_PLANS = "SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off;"
                + " SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL jit = off";

        /**
         * Tells PostgreSQL, for the claim's transaction only ({@code SET LOCAL}), to plan by the keys: every statement
         * of a claim reads rows by an index (the claim index in its order, the primary keys of the mails taken), and
         * the claim must cost what it takes, not what waits.
         *
         * <p>Why the planner is told: the queue's statistics are stale exactly when it matters. Right after a burst
         * is enqueued into a queue that was empty when its tables were last analyzed (or never were, as after the
         * first deployment), PostgreSQL has no null fraction for {@code CLAIMER} (it guesses 0.5 % of rows are free)
         * and takes the tables for a few dozen rows. It then read every free due row through a bitmap scan and
         * sorted them all to return the first 100, and read the mails taken by scanning every row of
         * {@code MAIL_MESSAGE} into a hash join: a claim cost time in proportion to the backlog and to all mail
         * kept (5 ms for 100 mails at 20,000 due, instead of 0.5 ms), until autovacuum analyzed the tables, a
         * minute later at the earliest and never where it is off. With these plans turned off, the remaining ones
         * are the index plans. JIT goes off as well: a statement that must sort anyway (the read of the mails taken,
         * 100 rows at most) is costed so high with sorting off that PostgreSQL would compile it (hundreds of ms).
         */
        @Override
        void planForKeys(Connection connection) throws SQLException {
            try (Statement s = connection.createStatement()) {
                s.execute(KEY_PLANS);
            }
        }

        /**
         * The pick is an uncorrelated {@code ARRAY(...)} subquery, which PostgreSQL runs exactly once (an InitPlan)
         * before the UPDATE finds the rows by their key. As {@code WHERE MAIL_ID IN (SELECT ... LIMIT ? FOR UPDATE
         * SKIP LOCKED)} it may be planned as the inner side of a join and run again for each outer row, and then take
         * more mails than the limit: with the plans of {@link #planForKeys} and an empty table's statistics it took 4
         * mails for a limit of 3.
         *
         * @param accounts the account filter
         * @return the claim; {@code ?}s: claimer, claim number, priority, now, the filter's, limit
         */
        static String sql(AccountFilter accounts) {
            return "UPDATE MAIL_QUEUE SET CLAIMER = ?, CLAIM_NO = ? WHERE MAIL_ID = ANY (ARRAY("
                    + DUE.formatted(accounts.sql()) + " LIMIT ? FOR UPDATE SKIP LOCKED)) RETURNING MAIL_ID";
        }

        @Override
        List<Long> lease(Connection connection, Lease lease, int claimNo, int priority, Instant now, int limit,
                         AccountFilter accounts) throws SQLException {
            try (PreparedStatement s = connection.prepareStatement(sql(accounts))) {
                int i = 1;
                s.setLong(i++, lease.claimer());
                s.setInt(i++, claimNo);
                s.setInt(i++, priority);
                SqlTime.set(s, i++, now);
                i = accounts.bind(s, i);
                s.setInt(i, limit);
                return Sql.readIds(s);
            }
        }
    }

    /** MariaDB: {@code SELECT ... FOR UPDATE SKIP LOCKED}, then one UPDATE of exactly the locked rows. */
    static final class SkipLocked extends LeaseStrategy {

        @Override
        List<Long> lease(Connection connection, Lease lease, int claimNo, int priority, Instant now, int limit,
                         AccountFilter accounts) throws SQLException {
            List<Long> ids;
            try (PreparedStatement pick = connection.prepareStatement(
                    DUE.formatted(accounts.sql()) + " LIMIT ? FOR UPDATE SKIP LOCKED")) {
                int i = 1;
                pick.setInt(i++, priority);
                SqlTime.set(pick, i++, now);
                i = accounts.bind(pick, i);
                pick.setInt(i, limit);
                ids = Sql.readIds(pick);
            }
            if (ids.isEmpty()) {
                return ids;
            }
            try (PreparedStatement take = connection.prepareStatement("UPDATE MAIL_QUEUE SET CLAIMER = ?, CLAIM_NO = ?"
                    + " WHERE MAIL_ID IN (" + Sql.marks(ids.size()) + ")")) {
                take.setLong(1, lease.claimer());
                take.setInt(2, claimNo);
                Sql.bindIds(take, 3, ids);
                take.executeUpdate();
            }
            return ids;
        }
    }

    /** Candidates read in order, then each taken by a guarded UPDATE of its own, in id order. */
    static final class GuardedUpdates extends LeaseStrategy {

        /** Rounds of pick-and-take before a claim gives up on a busy queue and returns what it has. */
        static final int ROUNDS = 4;

        static final String TAKE = "UPDATE MAIL_QUEUE SET CLAIMER = ?, CLAIM_NO = ?"
                + " WHERE MAIL_ID = ? AND CLAIMER IS NULL AND DUE_AT <= ?";

        private final DatabaseKind kind;

        GuardedUpdates(DatabaseKind kind) {
            this.kind = kind;
        }

        @Override
        boolean oneAtATimeInThisJvm() {
            return true;
        }

        @Override
        List<Long> lease(Connection connection, Lease lease, int claimNo, int priority, Instant now, int limit,
                         AccountFilter accounts) throws SQLException {
            for (int round = 0; round < ROUNDS; round++) {
                List<Long> candidates;
                try (PreparedStatement pick = connection.prepareStatement(
                        kind.firstRows(DUE.formatted(accounts.sql()), limit))) {
                    pick.setInt(1, priority);
                    SqlTime.set(pick, 2, now);
                    accounts.bind(pick, 3);
                    candidates = Sql.readIds(pick);
                }
                if (candidates.isEmpty()) {
                    return List.of();
                }
                List<Long> inIdOrder = new ArrayList<>(candidates);
                Collections.sort(inIdOrder);
                List<Long> taken = new ArrayList<>();
                try (PreparedStatement take = connection.prepareStatement(TAKE)) {
                    for (Long id : inIdOrder) {
                        take.setLong(1, lease.claimer());
                        take.setInt(2, claimNo);
                        take.setLong(3, id);
                        SqlTime.set(take, 4, now);
                        if (take.executeUpdate() == 1) {
                            taken.add(id);
                        }
                    }
                }
                if (!taken.isEmpty()) {
                    return taken;
                }
            }
            return List.of();
        }
    }
}
