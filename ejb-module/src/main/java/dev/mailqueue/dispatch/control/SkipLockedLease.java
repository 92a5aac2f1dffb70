package dev.mailqueue.dispatch.control;

import jakarta.persistence.EntityManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Leases with {@code SELECT ... FOR UPDATE SKIP LOCKED} (PostgreSQL 10+, MariaDB 10.6+):
 * the best due rows that no other transaction holds, locked in the same statement that picks them, so
 * concurrent claimers on any number of servers take disjoint rows without waiting for each other.
 * A native query because EclipseLink never emits SKIP LOCKED. The lease is then written to exactly
 * the locked rows, in the same transaction.
 */
final class SkipLockedLease implements LeaseStrategy {

    /** The pick; {@code ?}s: now, limit. Visible for tests. */
    static final String PICK = "SELECT ID FROM MAIL_MESSAGE"
            + " WHERE STATUS = 'QUEUED' AND NOT_BEFORE <= ? AND ATTEMPTS_REMAINING > 0"
            + " ORDER BY PRIORITY DESC, CREATED_AT, ID LIMIT ? FOR UPDATE SKIP LOCKED";

    /** Expired leases no other claimer holds; {@code ?}: now. Visible for tests. */
    static final String PICK_EXPIRED_SKIP_LOCKED = PICK_EXPIRED + " FOR UPDATE SKIP LOCKED";

    /**
     * Skips rows other claimers hold here too: a plain UPDATE over the lease index would wait for a
     * claimer that has just leased rows (InnoDB locks the index entries it meets even at READ COMMITTED).
     */
    @Override
    public List<ExpiredLease> findExpired(Connection connection, LocalDateTime now) throws SQLException {
        return ExpiredLease.read(connection, PICK_EXPIRED_SKIP_LOCKED, now);
    }

    @Override
    public List<Long> lease(EntityManager em, Connection connection, String owner, LocalDateTime expiresAt,
                            LocalDateTime now, int limit) throws SQLException {
        List<Long> ids = new ArrayList<>(limit);
        try (PreparedStatement pick = connection.prepareStatement(PICK)) {
            pick.setTimestamp(1, Timestamp.valueOf(now));
            pick.setInt(2, limit);
            try (ResultSet rows = pick.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getLong(1));
                }
            }
        }
        if (ids.isEmpty()) {
            return ids;
        }
        String update = "UPDATE MAIL_MESSAGE SET STATUS = 'SENDING', LEASE_OWNER = ?, LEASE_EXPIRES_AT = ?"
                + " WHERE ID IN (" + marks(ids.size()) + ")";
        try (PreparedStatement lease = connection.prepareStatement(update)) {
            lease.setString(1, owner);
            lease.setTimestamp(2, Timestamp.valueOf(expiresAt));
            int i = 3;
            for (Long id : ids) {
                lease.setLong(i++, id);
            }
            lease.executeUpdate();
        }
        return ids;
    }

    private static String marks(int count) {
        return String.join(",", Collections.nCopies(count, "?"));
    }
}
