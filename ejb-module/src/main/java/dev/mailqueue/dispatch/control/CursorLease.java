package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailMessage;
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
 * Leases rows with a pessimistic lock that really holds: a {@code SELECT ... FOR UPDATE OF} cursor
 * that re-checks each candidate is still due and writes the lease through the cursor
 * ({@link ResultSet#updateRow()}), in the claim's transaction.
 *
 * <p>Why not JPA's {@code PESSIMISTIC_WRITE}: on Derby, EclipseLink drops the lock clause from a
 * paged query, and from an unpaged one ({@code FOR UPDATE WITH RS}) Derby downgrades each update lock
 * to a shared lock once the cursor moves on; the UPDATE that follows must then upgrade it, and two
 * claimers holding the same shared lock deadlock. Updating through the cursor turns the update lock
 * into an exclusive one at once: a second claimer waits for the first to commit, then finds the row
 * no longer QUEUED and skips it. The cursor has no ORDER BY (Derby does not allow one on an updatable
 * cursor); the candidates were picked in order beforehand (a paged JPQL query, so each database gets
 * its own paging syntax), and rows are locked in key order, so claimers cannot deadlock on each other.
 * Candidates another claimer took between pick and lock are skipped; if that empties a round, the
 * claim picks again, {@value #ROUNDS} rounds at most.
 */
final class CursorLease implements LeaseStrategy {

    /** Rounds of pick-and-lock before a claim gives up on a busy queue and returns what it has. */
    static final int ROUNDS = 4;

    /** Visible for tests: the statement sent, with one {@code ?} per candidate id. */
    static String sql(int candidates) {
        return "SELECT ID, STATUS, LEASE_OWNER, LEASE_EXPIRES_AT FROM MAIL_MESSAGE"
                + " WHERE ID IN (" + String.join(",", Collections.nCopies(candidates, "?")) + ")"
                + " AND STATUS = 'QUEUED' AND NOT_BEFORE <= ? AND ATTEMPTS_REMAINING > 0"
                + " FOR UPDATE OF STATUS, LEASE_OWNER, LEASE_EXPIRES_AT";
    }

    @Override
    public List<Long> lease(EntityManager em, Connection connection, String owner, LocalDateTime expiresAt,
                            LocalDateTime now, int limit) throws SQLException {
        for (int round = 0; round < ROUNDS; round++) {
            List<Long> candidates = em.createNamedQuery(MailMessage.DUE_IDS, Long.class)
                    .setParameter("now", now)
                    .setMaxResults(limit)
                    .getResultList();
            if (candidates.isEmpty()) {
                return List.of();
            }
            List<Long> leased = lease(connection, candidates, owner, expiresAt, now);
            if (!leased.isEmpty()) {
                return leased;
            }
        }
        return List.of();
    }

    /**
     * @param connection the claim transaction's connection (auto-commit off)
     * @param candidates ids picked as due, 1 or more
     * @param owner      the lease owner to write
     * @param expiresAt  UTC lease expiry to write
     * @param now        UTC now, for the due re-check
     * @return the ids leased now; candidates another claimer took meanwhile are left out
     * @throws SQLException when the database refuses, e.g. a lock timeout
     */
    static List<Long> lease(Connection connection, List<Long> candidates, String owner, LocalDateTime expiresAt,
                            LocalDateTime now) throws SQLException {
        List<Long> leased = new ArrayList<>(candidates.size());
        try (PreparedStatement select = connection.prepareStatement(sql(candidates.size()),
                ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE)) {
            int i = 1;
            for (Long id : candidates) {
                select.setLong(i++, id);
            }
            select.setTimestamp(i, Timestamp.valueOf(now));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    if (!"QUEUED".equals(rows.getString("STATUS"))) {
                        continue;
                    }
                    long id = rows.getLong("ID"); // read first: after updateRow() Derby has no current row
                    rows.updateString("STATUS", "SENDING");
                    rows.updateString("LEASE_OWNER", owner);
                    rows.updateTimestamp("LEASE_EXPIRES_AT", Timestamp.valueOf(expiresAt));
                    rows.updateRow();
                    leased.add(id);
                }
            }
        }
        return leased;
    }
}
