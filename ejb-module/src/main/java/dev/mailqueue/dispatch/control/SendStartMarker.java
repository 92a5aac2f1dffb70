package dev.mailqueue.dispatch.control;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.Collections;
import java.util.List;

/**
 * Notes, in a transaction of its own committed before the first SMTP command, that a claimer is about
 * to send a chunk of its leased rows. If the claimer then dies, the rows' leases expire with the mark
 * set, and whoever takes them back knows the server may already have them: the attempt is in doubt
 * ({@link LeaseRecovery}). One UPDATE per chunk; the recorded outcome clears the mark.
 */
@Stateless
public class SendStartMarker {

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    /**
     * @param ids   the chunk's rows; only those still leased to {@code owner} are marked
     * @param owner the claimer about to send
     * @param at    UTC now
     * @throws PersistenceException when the database refuses
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void markStarted(List<Long> ids, String owner, LocalDateTime at) {
        if (ids.isEmpty()) {
            return;
        }
        String sql = "UPDATE MAIL_MESSAGE SET SEND_STARTED_AT = ? WHERE LEASE_OWNER = ? AND ID IN ("
                + String.join(",", Collections.nCopies(ids.size(), "?")) + ")";
        try (PreparedStatement mark = em.unwrap(Connection.class).prepareStatement(sql)) {
            mark.setTimestamp(1, Timestamp.valueOf(at));
            mark.setString(2, owner);
            int i = 3;
            for (Long id : ids) {
                mark.setLong(i++, id);
            }
            mark.executeUpdate();
        } catch (SQLException e) {
            throw new PersistenceException("could not mark " + ids.size() + " mails of " + owner + " as being sent", e);
        }
    }
}
