package dev.mailqueue.dispatch.control;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.Map;

/**
 * Hands claimed mails back to the queue unsent because their account's rate limit is reached: QUEUED
 * again, due when the account expects a free slot, lease cleared, attempts untouched (nothing was
 * tried). So rows never sit leased waiting for their turn, and their lease cannot expire meanwhile.
 * Runs in the chunk transaction, and only on rows this claimer still holds.
 */
@Stateless
public class DeferredMails {

    /** {@code ?}s: not-before, id, owner. */
    static final String DEFER = "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', NOT_BEFORE = ?,"
            + " LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    /**
     * @param dueAgain   per mail id, the UTC time it is due again
     * @param leaseOwner the claimer that holds the rows
     * @return how many rows went back to the queue (the others had lost their lease)
     * @throws PersistenceException when the database refuses the update
     */
    public int defer(Map<Long, LocalDateTime> dueAgain, String leaseOwner) {
        if (dueAgain.isEmpty()) {
            return 0;
        }
        try (PreparedStatement s = em.unwrap(Connection.class).prepareStatement(DEFER)) {
            for (Map.Entry<Long, LocalDateTime> e : dueAgain.entrySet()) {
                s.setTimestamp(1, Timestamp.valueOf(e.getValue()));
                s.setLong(2, e.getKey());
                s.setString(3, leaseOwner);
                s.addBatch();
            }
            int changed = 0;
            for (int count : s.executeBatch()) {
                changed += Math.max(0, count);
            }
            return changed;
        } catch (SQLException e) {
            throw new PersistenceException("could not defer " + dueAgain.size() + " mails of " + leaseOwner, e);
        }
    }
}
