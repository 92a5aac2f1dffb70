package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How a claim picks and locks due rows on one kind of database, in the claim's transaction, and how it
 * finds leases that ran out. Two ways, both pessimistic (a row is leased under its write lock):
 * <ul>
 *   <li>where the database can skip rows other transactions hold (PostgreSQL 10+, MariaDB 10.6+), the
 *       pick is {@code SELECT ... FOR UPDATE SKIP LOCKED}: concurrent claimers on any number of servers
 *       take disjoint rows and never wait for each other. A native query: EclipseLink never emits SKIP
 *       LOCKED;</li>
 *   <li>elsewhere (Derby, and SQL Server and Oracle, untested) the candidates are read in order and each
 *       is leased by its own {@code UPDATE ... WHERE ID = ? AND STATUS = 'QUEUED'}, in id order: the
 *       update takes the row's write lock, and a claimer that raced for the same row waits for the
 *       winner's commit, then finds it no longer QUEUED and leaves it (its update count is 0). Id order
 *       keeps two claimers from waiting for each other in a cycle.</li>
 * </ul>
 */
abstract class LeaseStrategy {

    /** The due rows, best first: priority, then age; {@code %s}: the account filter. {@code ?}: now. */
    static final String DUE = "SELECT ID FROM MAIL_MESSAGE WHERE STATUS = 'QUEUED' AND NOT_BEFORE <= ?"
            + " AND ATTEMPTS_REMAINING > 0%s ORDER BY PRIORITY DESC, CREATED_AT, ID";

    /** SENDING rows whose lease ran out; {@code ?}: now. */
    static final String EXPIRED = "SELECT ID, LEASE_OWNER, SEND_STARTED_AT, ATTEMPTS_REMAINING FROM MAIL_MESSAGE"
            + " WHERE STATUS = 'SENDING' AND LEASE_EXPIRES_AT < ?";

    /**
     * @param kind the database
     * @return how to lease on it
     */
    static LeaseStrategy of(DatabaseKind kind) {
        return kind.skipsLocked() ? new SkipLocked() : new GuardedUpdates(kind);
    }

    /**
     * @return true when claims of one JVM must run one at a time: without SKIP LOCKED, Derby's read of
     *         the due rows waits for rows another claimer has just leased, while that claimer's lease
     *         updates may wait for rows the first has leased, and the two deadlock. One at a time, a claim
     *         only ever waits for a commit that needs nothing from it. (Derby is embedded: its claimers
     *         are all in this JVM.)
     */
    boolean oneAtATimeInThisJvm() {
        return false;
    }

    /**
     * Leases up to {@code limit} due rows: SENDING, {@code owner}, {@code expiresAt}, claimed {@code now}.
     *
     * @param connection the claim transaction's connection
     * @param owner      the lease owner to write
     * @param now        now: due means NOT_BEFORE &lt;= now
     * @param expiresAt  the lease's expiry
     * @param limit      most rows to lease, 1 or more
     * @param accounts   which accounts' mails to leave alone
     * @return the ids leased; empty when none are due (or all due rows are held by other claimers)
     * @throws SQLException when the database refuses, e.g. a lock timeout
     */
    abstract List<Long> lease(Connection connection, String owner, Instant now, Instant expiresAt, int limit,
                              AccountFilter accounts) throws SQLException;

    /**
     * @param connection the claim transaction's connection
     * @param now        now
     * @return the leases that ran out before now (the take-back itself is conditional on the lease)
     * @throws SQLException when the database refuses
     */
    List<ExpiredLease> findExpired(Connection connection, Instant now) throws SQLException {
        return readExpired(connection, EXPIRED, now);
    }

    static List<ExpiredLease> readExpired(Connection connection, String sql, Instant now) throws SQLException {
        List<ExpiredLease> found = new ArrayList<>();
        try (PreparedStatement pick = connection.prepareStatement(sql)) {
            SqlTime.set(pick, 1, now);
            try (ResultSet rows = pick.executeQuery()) {
                while (rows.next()) {
                    found.add(new ExpiredLease(rows.getLong(1), rows.getString(2), SqlTime.get(rows, 3), rows.getInt(4)));
                }
            }
        }
        return found;
    }

    /** {@code SELECT ... FOR UPDATE SKIP LOCKED}, then one UPDATE of exactly the locked rows. */
    static final class SkipLocked extends LeaseStrategy {

        @Override
        List<ExpiredLease> findExpired(Connection connection, Instant now) throws SQLException {
            // A plain read here would wait for a claimer that has just leased rows: InnoDB locks the index
            // entries it meets even at READ COMMITTED.
            return readExpired(connection, EXPIRED + " FOR UPDATE SKIP LOCKED", now);
        }

        @Override
        List<Long> lease(Connection connection, String owner, Instant now, Instant expiresAt, int limit,
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
            try (PreparedStatement lease = connection.prepareStatement("UPDATE MAIL_MESSAGE SET STATUS = 'SENDING',"
                    + " LEASE_OWNER = ?, LEASE_EXPIRES_AT = ?, CLAIMED_AT = ?, SEND_STARTED_AT = NULL"
                    + " WHERE ID IN (" + Sql.marks(ids.size()) + ")")) {
                lease.setString(1, owner);
                SqlTime.set(lease, 2, expiresAt);
                SqlTime.set(lease, 3, now);
                int i = 4;
                for (Long id : ids) {
                    lease.setLong(i++, id);
                }
                lease.executeUpdate();
            }
            return ids;
        }
    }

    /** Candidates read in order, then each leased by a guarded UPDATE of its own, in id order. */
    static final class GuardedUpdates extends LeaseStrategy {

        /** Rounds of pick-and-lease before a claim gives up on a busy queue and returns what it has. */
        static final int ROUNDS = 4;

        static final String LEASE = "UPDATE MAIL_MESSAGE SET STATUS = 'SENDING', LEASE_OWNER = ?,"
                + " LEASE_EXPIRES_AT = ?, CLAIMED_AT = ?, SEND_STARTED_AT = NULL"
                + " WHERE ID = ? AND STATUS = 'QUEUED' AND NOT_BEFORE <= ? AND ATTEMPTS_REMAINING > 0";

        private final DatabaseKind kind;

        GuardedUpdates(DatabaseKind kind) {
            this.kind = kind;
        }

        @Override
        boolean oneAtATimeInThisJvm() {
            return true;
        }

        @Override
        List<Long> lease(Connection connection, String owner, Instant now, Instant expiresAt, int limit,
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
                List<Long> leased = new ArrayList<>();
                try (PreparedStatement lease = connection.prepareStatement(LEASE)) {
                    for (Long id : inIdOrder) {
                        lease.setString(1, owner);
                        SqlTime.set(lease, 2, expiresAt);
                        SqlTime.set(lease, 3, now);
                        lease.setLong(4, id);
                        SqlTime.set(lease, 5, now);
                        if (lease.executeUpdate() == 1) {
                            leased.add(id);
                        }
                    }
                }
                if (!leased.isEmpty()) {
                    return leased;
                }
            }
            return List.of();
        }
    }
}
