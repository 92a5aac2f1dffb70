package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.control.MailParts;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.MailRecipient;
import dev.mailqueue.mail.entity.RecipientStatus;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Claims due mails for one claimer, in a short transaction of its own that commits before any mail
 * is sent. A claim first puts rows whose lease expired (their worker died) back in the queue, then
 * picks the best due rows (priority, then age) and leases them under a pessimistic row lock: SENDING,
 * owner, expiry. How it locks depends on the database ({@link LeaseStrategy}): {@code SKIP LOCKED}
 * where the database has it, a {@code FOR UPDATE} cursor elsewhere. The claimed rows come with their
 * attachments and custom header fields, read for the whole claim in one query per table.
 */
@Stateless
public class MailClaimer {

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    private LeaseStrategy strategy; // chosen on first use from the database's product name

    /**
     * @param owner       lease owner, e.g. {@code host/server#42}, at most 200 characters
     * @param leaseMillis how long the lease lasts in ms, at least 1
     * @param limit       most rows to claim, 1 or more
     * @param now         UTC now
     * @return the claimed rows (detached once the transaction commits) with their attachments and
     *         headers, best first; empty when none are due
     * @throws PersistenceException when the database fails or a lock cannot be had (the claim then
     *                              leases nothing; its transaction rolls back)
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW) // commit the lease before sending
    public List<MailMessage> claim(String owner, long leaseMillis, int limit, LocalDateTime now) {
        return claim(owner, leaseMillis, limit, now, InDoubtPolicy.RESEND);
    }

    /**
     * Like {@link #claim(String, long, int, LocalDateTime)}, with the policy for expired leases whose
     * send may have happened.
     *
     * @param inDoubt what becomes of a row whose lease expired after its SMTP transaction began
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public List<MailMessage> claim(String owner, long leaseMillis, int limit, LocalDateTime now, InDoubtPolicy inDoubt) {
        LocalDateTime expiresAt = now.plusNanos(leaseMillis * 1_000_000L);
        List<Long> leased;
        try {
            Connection connection = em.unwrap(Connection.class);
            LeaseStrategy strategy = strategy(connection);
            LeaseRecovery.recover(em, connection, strategy.findExpired(connection, now), inDoubt, now);
            leased = strategy.lease(em, connection, owner, expiresAt, now, limit);
        } catch (SQLException e) {
            throw new PersistenceException("could not lease up to " + limit + " mails for " + owner, e);
        }
        if (leased.isEmpty()) {
            return List.of();
        }
        List<MailMessage> mails = em.createNamedQuery(MailMessage.LEASED, MailMessage.class)
                .setParameter("owner", owner)
                .setParameter("ids", leased)
                .getResultList();
        MailParts.load(em, mails);
        attachSettledRecipients(mails);
        return mails;
    }

    /** One query a claim: recipients earlier attempts settled, so they are not sent to again. */
    private void attachSettledRecipients(List<MailMessage> mails) {
        Map<Long, Map<String, RecipientStatus>> settled = new HashMap<>();
        em.createNamedQuery(MailRecipient.BY_MAILS, MailRecipient.class)
                .setParameter("ids", mails.stream().map(MailMessage::getId).toList())
                .getResultStream()
                .filter(r -> r.getStatus() != RecipientStatus.DEFERRED)
                .forEach(r -> settled.computeIfAbsent(r.getMailId(), id -> new HashMap<>())
                        .put(r.getAddress().toLowerCase(Locale.ROOT), r.getStatus()));
        for (MailMessage mail : mails) {
            mail.setSettledRecipients(settled.getOrDefault(mail.getId(), Map.of()));
        }
    }

    private LeaseStrategy strategy(Connection connection) throws SQLException {
        if (strategy == null) {
            strategy = LeaseStrategy.forDatabase(connection.getMetaData().getDatabaseProductName());
        }
        return strategy;
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
