package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailMessage;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;

import java.time.LocalDateTime;
import java.util.Comparator;
import java.util.List;

/**
 * Claims due mails for one claimer, in a short transaction of its own that commits before any mail
 * is sent. A claim first puts rows whose lease expired (their worker died) back in the queue, then
 * picks the best due rows (priority, then age), locks them with a pessimistic write lock that
 * re-checks they are still due, and leases them: SENDING, owner, expiry.
 *
 * <p>The pick and the lock are two statements because EclipseLink drops the lock clause on Derby
 * when a query is paged (see STACK.md); the locking statement is unpaged and names the rows by id.
 * Rows another claimer took in between fail the re-check and are skipped; if that empties a round,
 * the claim tries again, a few times at most.
 */
@Stateless
public class MailClaimer {

    /** Rounds of pick-and-lock before a claim gives up on a busy queue and returns what it has. */
    static final int ROUNDS = 4;

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    /**
     * @param owner       lease owner, e.g. {@code host/server#42}, at most 200 characters
     * @param leaseMillis how long the lease lasts in ms, at least 1
     * @param limit       most rows to claim, 1 or more
     * @param now         UTC now
     * @return the claimed rows (detached once the transaction commits), best first; empty when none are due
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW) // commit the lease before sending
    public List<MailMessage> claim(String owner, long leaseMillis, int limit, LocalDateTime now) {
        releaseExpiredLeases(now);
        LocalDateTime expiresAt = now.plusNanos(leaseMillis * 1_000_000L);
        for (int round = 0; round < ROUNDS; round++) {
            List<Long> candidates = em.createNamedQuery(MailMessage.DUE_IDS, Long.class)
                    .setParameter("now", now)
                    .setMaxResults(limit)
                    .getResultList();
            if (candidates.isEmpty()) {
                return List.of();
            }
            List<MailMessage> locked = em.createNamedQuery(MailMessage.LOCK_DUE, MailMessage.class)
                    .setParameter("ids", candidates)
                    .setParameter("now", now)
                    .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                    .getResultList();
            if (!locked.isEmpty()) {
                locked.forEach(mail -> mail.lease(owner, expiresAt));
                return locked.stream()
                        .sorted(Comparator.comparingInt(MailMessage::getPriority).reversed()
                                .thenComparing(MailMessage::getCreatedAt)
                                .thenComparing(MailMessage::getId))
                        .toList();
            }
        }
        return List.of();
    }

    /**
     * Puts SENDING rows whose lease expired before {@code now} back to QUEUED, like the seed's
     * "put back in the queue after the timeout"; last_error notes it.
     *
     * @param now UTC now
     * @return how many rows came back
     */
    int releaseExpiredLeases(LocalDateTime now) {
        return em.createNamedQuery(MailMessage.RELEASE_EXPIRED_LEASES)
                .setParameter("now", now)
                .setParameter("note", "lease expired before the outcome was recorded; queued again")
                .executeUpdate();
    }

    /**
     * How much work waits, for deciding how many claimers to start.
     *
     * @param now UTC now
     * @param max stop counting at this many, 1 or more
     * @return due QUEUED rows plus SENDING rows with an expired lease, at most {@code 2 * max}
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int claimable(LocalDateTime now, int max) {
        int due = em.createNamedQuery(MailMessage.DUE_IDS, Long.class)
                .setParameter("now", now).setMaxResults(max).getResultList().size();
        int expired = em.createNamedQuery(MailMessage.EXPIRED_LEASE_IDS, Long.class)
                .setParameter("now", now).setMaxResults(max).getResultList().size();
        return due + expired;
    }
}
