package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How a claim picks and takes due mail on one kind of database, in the claim's transaction. A mail is taken by
 * writing its claimer into its MAIL_QUEUE row (one narrow write per mail, none to the mail itself). Three ways,
 * all pessimistic (a row is taken under its write lock):
 * <ul>
 *   <li>PostgreSQL: one statement, {@code UPDATE ... WHERE MAIL_ID IN (SELECT ... FOR UPDATE SKIP LOCKED)
 *       RETURNING}: concurrent claimers on any number of servers take disjoint rows and never wait for each
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

    /** The free due mail, best first: priority, then age; {@code %s}: the account filter. {@code ?}: now. */
    static final String DUE = "SELECT MAIL_ID FROM MAIL_QUEUE WHERE CLAIMER IS NULL AND DUE_AT <= ?%s"
            + " ORDER BY PRIORITY DESC, CREATED_AT, MAIL_ID";

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
     * Takes up to {@code limit} free due mails for a claimer.
     *
     * @param connection the claim transaction's connection
     * @param lease      the claimer
     * @param claimNo    which claim of the claimer this is: with the claim's order, its send order
     * @param now        now: due means DUE_AT &lt;= now
     * @param limit      most mails to take, 1 or more
     * @param accounts   which accounts' (and campaigns') mails to leave alone
     * @return the ids taken; empty when none are due (or all due ones are held by other claimers)
     * @throws SQLException when the database refuses, e.g. a lock timeout
     */
    abstract List<Long> lease(Connection connection, Lease lease, int claimNo, Instant now, int limit,
                              AccountFilter accounts) throws SQLException;

    /** PostgreSQL: pick and take in one statement. */
    static final class OneStatement extends LeaseStrategy {

        @Override
        List<Long> lease(Connection connection, Lease lease, int claimNo, Instant now, int limit,
                         AccountFilter accounts) throws SQLException {
            try (PreparedStatement s = connection.prepareStatement("UPDATE MAIL_QUEUE SET CLAIMER = ?, CLAIM_NO = ?"
                    + " WHERE MAIL_ID IN (" + DUE.formatted(accounts.sql()) + " LIMIT ? FOR UPDATE SKIP LOCKED)"
                    + " RETURNING MAIL_ID")) {
                int i = 1;
                s.setLong(i++, lease.claimer());
                s.setInt(i++, claimNo);
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
        List<Long> lease(Connection connection, Lease lease, int claimNo, Instant now, int limit,
                         AccountFilter accounts) throws SQLException {
            List<Long> ids;
            try (PreparedStatement pick = connection.prepareStatement(
                    DUE.formatted(accounts.sql()) + " LIMIT ? FOR UPDATE SKIP LOCKED")) {
                int i = 1;
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
        List<Long> lease(Connection connection, Lease lease, int claimNo, Instant now, int limit,
                         AccountFilter accounts) throws SQLException {
            for (int round = 0; round < ROUNDS; round++) {
                List<Long> candidates;
                try (PreparedStatement pick = connection.prepareStatement(
                        kind.firstRows(DUE.formatted(accounts.sql()), limit))) {
                    SqlTime.set(pick, 1, now);
                    accounts.bind(pick, 2);
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
