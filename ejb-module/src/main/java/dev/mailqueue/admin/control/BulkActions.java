package dev.mailqueue.admin.control;

import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.control.MailLifetime;
import dev.mailqueue.queue.entity.MailMessage;
import dev.mailqueue.queue.control.OperatorStore;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.Predicate;
import jakarta.persistence.criteria.Root;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The operator's actions on many mails at once, in bounded chunks: the filter picks up to {@value #CHUNK}
 * ids at a time in id order (the same criteria as a search, restricted to the statuses the action
 * applies to), and the store changes them ({@link OperatorStore}: each change still guarded by the status,
 * so a row a claimer took meanwhile is left alone), each chunk in a transaction of its own. So an action
 * on a million mails never holds a million row locks or one long transaction, and what is done stays
 * done if a later chunk fails. None ever touches a SENDING row: its claimer holds the lease.
 */
@Stateless
public class BulkActions {

    @jakarta.inject.Inject
    ServerInstance server;

    /** Mails per chunk, and per transaction. */
    static final int CHUNK = 500;

    /** What a bulk action does. */
    public enum Action {
        /** Back to the queue as if new ({@link OperatorStore#requeue}). */
        REQUEUE(MailLifecycle.REQUEUEABLE),
        /** Withdrawn ({@link OperatorStore#cancel}). */
        CANCEL(MailLifecycle.CANCELLABLE),
        /** Deleted with everything that belongs to it ({@link OperatorStore#delete}). */
        DELETE(MailLifecycle.DELETABLE);

        private final Set<MailStatus> from;

        Action(Set<MailStatus> from) {
            this.from = from;
        }

        /** @return the statuses the action applies to */
        public Set<MailStatus> from() {
            return from;
        }
    }

    /**
     * One chunk's result.
     *
     * @param changed rows changed
     * @param lastId  the largest id looked at, or -1 when the filter matched no more
     */
    public record Chunk(int changed, long lastId) {
    }

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    @Inject
    OperatorStore store;

    @Inject
    MailLifetime lifetime; // attempts and lifetime, as a new mail gets them

    /**
     * Applies the action to the next chunk of matching mails after {@code afterId}, and commits.
     *
     * @param action  what to do
     * @param filter  which mails
     * @param afterId only ids greater than this
     * @param now     now (a requeue makes mails due then)
     * @param actor   who acts, as the mails' log names them, e.g. {@code operator:admin}
     * @return what the chunk did
     * @throws dev.mailqueue.queue.control.StoreException (wrapped by the container) when the database fails
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Chunk next(Action action, MailFilter filter, long afterId, Instant now, String actor) {
        List<Long> ids = ids(filter, action.from(), afterId);
        if (ids.isEmpty()) {
            return new Chunk(0, -1);
        }
        int changed = switch (action) {
            case REQUEUE -> store.requeue(ids, now, lifetime.attempts(), lifetime.expiry(null, now), server.name(), actor);
            case CANCEL -> store.cancel(ids, action.from(), server.name(), actor);
            case DELETE -> store.delete(ids);
        };
        return new Chunk(changed, ids.get(ids.size() - 1));
    }

    /** @return up to {@value #CHUNK} ids after {@code afterId} that the filter matches among {@code allowed}, ascending */
    private List<Long> ids(MailFilter filter, Set<MailStatus> allowed, long afterId) {
        if (MailCriteria.statuses(filter, allowed).isEmpty()) {
            return List.of();
        }
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaQuery<Long> select = cb.createQuery(Long.class);
        MailCriteria.Roots roots = new MailCriteria.Roots(select);
        Root<MailMessage> mail = roots.mail();
        List<Predicate> where = new ArrayList<>(List.of(MailCriteria.of(cb, roots, filter, allowed)));
        where.add(cb.greaterThan(mail.get("id"), afterId));
        select.select(mail.get("id")).where(where.toArray(Predicate[]::new)).orderBy(cb.asc(mail.get("id")));
        return em.createQuery(select).setMaxResults(CHUNK).getResultList();
    }

    /**
     * A bulk action without criteria would hit the whole table: refused; "all FAILED" is a criterion.
     *
     * @param filter the operator's filter
     * @throws InvalidFilterException when it has no criterion
     */
    public static void requireCriteria(MailFilter filter) throws InvalidFilterException {
        if (filter == null || filter.isEmpty()) {
            throw new InvalidFilterException(List.of(new FieldError("filter",
                    "a bulk action needs at least one criterion (ids, statuses, recipient, sender, enqueuedBy,"
                            + " campaign, tag, reference, createdFrom, createdTo, errorText, subject, account, bounced)")));
        }
    }
}
