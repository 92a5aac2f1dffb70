package dev.mailqueue.admin.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.MailMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaDelete;
import jakarta.persistence.criteria.CriteriaUpdate;
import jakarta.persistence.criteria.Root;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.LocalDateTime;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The operator's actions on many mails at once, each one SQL statement over the rows a filter matches,
 * restricted to the statuses the action applies to. None ever touches a SENDING row: its claimer holds
 * the lease and will record the outcome.
 */
@ApplicationScoped
public class BulkActions {

    /** Statuses a mail can be requeued from. CANCELLED too: an operator who withdrew a mail by mistake. */
    public static final Set<MailStatus> REQUEUEABLE = EnumSet.of(MailStatus.FAILED, MailStatus.EXPIRED,
            MailStatus.HELD, MailStatus.CANCELLED);

    /** Statuses a mail can be cancelled from: not yet claimed, or held for review. */
    public static final Set<MailStatus> CANCELLABLE = EnumSet.of(MailStatus.QUEUED, MailStatus.HELD);

    /** Statuses a mail can be deleted in: all but SENDING. */
    public static final Set<MailStatus> DELETABLE = EnumSet.complementOf(EnumSet.of(MailStatus.SENDING));

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.max-attempts", defaultValue = "5")
    int maxAttempts;

    /**
     * Puts the matching FAILED, EXPIRED, HELD and CANCELLED mails back in the queue as if new: QUEUED,
     * due {@code now}, {@code mailqueue.delivery.max-attempts} attempts, no lease. The attempt log and
     * the last error stay.
     *
     * @param em     the persistence context, in a transaction
     * @param filter which mails; must not be empty
     * @param now    UTC now
     * @return rows changed
     * @throws InvalidFilterException when the filter is empty
     */
    public int requeue(EntityManager em, MailFilter filter, LocalDateTime now) throws InvalidFilterException {
        requireCriteria(filter);
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaUpdate<MailMessage> update = cb.createCriteriaUpdate(MailMessage.class);
        Root<MailMessage> mail = update.from(MailMessage.class);
        if (MailCriteria.statuses(filter, REQUEUEABLE).isEmpty()) {
            return 0;
        }
        update.set(mail.<MailStatus>get("status"), MailStatus.QUEUED)
                .set(mail.<Integer>get("attemptsRemaining"), Math.max(1, maxAttempts))
                .set(mail.<LocalDateTime>get("notBefore"), now)
                .set(mail.<String>get("leaseOwner"), cb.nullLiteral(String.class))
                .set(mail.<LocalDateTime>get("leaseExpiresAt"), cb.nullLiteral(LocalDateTime.class))
                .where(MailCriteria.of(cb, update, mail, filter, REQUEUEABLE));
        return em.createQuery(update).executeUpdate();
    }

    /**
     * Cancels the matching QUEUED and HELD mails.
     *
     * @param em     the persistence context, in a transaction
     * @param filter which mails; must not be empty
     * @return rows changed
     * @throws InvalidFilterException when the filter is empty
     */
    public int cancel(EntityManager em, MailFilter filter) throws InvalidFilterException {
        requireCriteria(filter);
        if (MailCriteria.statuses(filter, CANCELLABLE).isEmpty()) {
            return 0;
        }
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaUpdate<MailMessage> update = cb.createCriteriaUpdate(MailMessage.class);
        Root<MailMessage> mail = update.from(MailMessage.class);
        update.set(mail.<MailStatus>get("status"), MailStatus.CANCELLED)
                .where(MailCriteria.of(cb, update, mail, filter, CANCELLABLE));
        return em.createQuery(update).executeUpdate();
    }

    /**
     * Deletes the matching mails except SENDING ones; their attempt rows go with them (ON DELETE CASCADE).
     *
     * @param em     the persistence context, in a transaction
     * @param filter which mails; must not be empty
     * @return mails deleted
     * @throws InvalidFilterException when the filter is empty
     */
    public int delete(EntityManager em, MailFilter filter) throws InvalidFilterException {
        requireCriteria(filter);
        if (MailCriteria.statuses(filter, DELETABLE).isEmpty()) {
            return 0;
        }
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaDelete<MailMessage> delete = cb.createCriteriaDelete(MailMessage.class);
        Root<MailMessage> mail = delete.from(MailMessage.class);
        delete.where(MailCriteria.of(cb, delete, mail, filter, DELETABLE));
        return em.createQuery(delete).executeUpdate();
    }

    /** A bulk action without criteria would hit the whole table: refuse it; "all FAILED" is a criterion. */
    private static void requireCriteria(MailFilter filter) throws InvalidFilterException {
        if (filter == null || filter.isEmpty()) {
            throw new InvalidFilterException(List.of(new FieldError("filter",
                    "a bulk action needs at least one criterion (ids, statuses, recipient, sender, enqueuedBy,"
                            + " createdFrom, createdTo, errorText, bounced)")));
        }
    }

    /** @return the attempts a requeued mail gets: {@code mailqueue.delivery.max-attempts}, at least 1 */
    public int attemptsOnRequeue() {
        return Math.max(1, maxAttempts);
    }
}
