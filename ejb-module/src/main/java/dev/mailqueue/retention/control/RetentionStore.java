package dev.mailqueue.retention.control;

import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.time.LocalDateTime;
import java.util.List;

/**
 * The retention job's database work, in the caller's transaction (the chunk's): find deletable mails
 * page by page in id order, and delete a page. The database deletes a mail's attempts, attachments
 * and headers with it (ON DELETE CASCADE).
 */
@Stateless
public class RetentionStore {

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    /**
     * @param cutoff  rows whose last moment is before this (UTC) may go
     * @param afterId only ids greater than this, 0 or more (keyset paging)
     * @param max     most ids to return, 1 or more
     * @return ids of deletable mails, ascending
     */
    public List<Long> deletable(LocalDateTime cutoff, long afterId, int max) {
        return em.createQuery("SELECT m.id FROM MailMessage m WHERE " + RetentionPolicy.DELETABLE
                        + " AND m.id > :afterId ORDER BY m.id", Long.class)
                .setParameter("terminal", RetentionPolicy.TERMINAL)
                .setParameter("cutoff", cutoff)
                .setParameter("afterId", afterId)
                .setMaxResults(max)
                .getResultList();
    }

    /**
     * Deletes those of {@code ids} that are still deletable now: a mail requeued since it was read
     * stays.
     *
     * @param ids    mail ids, at most a few hundred (they go in an IN list)
     * @param cutoff the same cutoff the ids were read with
     * @return rows of MAIL_MESSAGE deleted
     */
    public int delete(List<Long> ids, LocalDateTime cutoff) {
        if (ids.isEmpty()) {
            return 0;
        }
        return em.createQuery("DELETE FROM MailMessage m WHERE m.id IN :ids AND " + RetentionPolicy.DELETABLE)
                .setParameter("ids", ids)
                .setParameter("terminal", RetentionPolicy.TERMINAL)
                .setParameter("cutoff", cutoff)
                .executeUpdate();
    }
}
