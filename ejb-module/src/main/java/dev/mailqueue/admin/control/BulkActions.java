package dev.mailqueue.admin.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.control.MailFactory;
import dev.mailqueue.mail.entity.MailMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.Root;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's actions on many mails at once. The filter picks the ids (the same criteria as a
 * search, restricted to the statuses the action applies to); then one UPDATE or DELETE per
 * {@value #CHUNK} ids changes them, each still guarded by the status, so a row a claimer took meanwhile
 * is left alone, and the driver's row counts are the answer. None ever touches a SENDING row: its
 * claimer holds the lease and will record the outcome.
 *
 * <p>Plain JDBC on the transaction's connection, not JPQL bulk updates: with the persistence unit's
 * JDBC batch writing EclipseLink reports 1 for any bulk update, and the operator is told the count.
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

    /** Ids per statement: well below the bind-parameter limits of every database (SQL Server: 2,100). */
    static final int CHUNK = 500;

    @Inject
    MailFactory factory; // attempts and lifetime, as a new mail gets them

    /**
     * Puts the matching FAILED, EXPIRED, HELD and CANCELLED mails back in the queue as if new: QUEUED,
     * due {@code now}, {@code mailqueue.delivery.max-attempts} attempts, a new lifetime
     * ({@code mailqueue.delivery.max-lifetime.ms} from now), no lease. Recipients an earlier attempt
     * refused or deferred are forgotten, so the resend tries them again ("resend only the messages that
     * bounced", seed 004); recipients that accepted the mail are kept and not sent to again. The attempt
     * log and the last error stay.
     *
     * @param em     the persistence context, in a transaction
     * @param filter which mails; must not be empty
     * @param now    UTC now
     * @return rows changed
     * @throws InvalidFilterException when the filter is empty
     * @throws PersistenceException   when the database refuses the update
     */
    public int requeue(EntityManager em, MailFilter filter, LocalDateTime now) throws InvalidFilterException {
        LocalDateTime expiry = factory.expiry(null, now);
        Timestamp expires = expiry == null ? null : Timestamp.valueOf(expiry);
        return apply(em, filter, REQUEUEABLE, "DELETE FROM MAIL_RECIPIENT WHERE STATUS <> 'SENT' AND MAIL_ID",
                "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', ATTEMPTS_REMAINING = ?, NOT_BEFORE = ?, EXPIRES_AT = ?,"
                + " LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL", statement -> {
                    statement.setInt(1, factory.attempts());
                    statement.setTimestamp(2, Timestamp.valueOf(now));
                    if (expires == null) {
                        statement.setNull(3, java.sql.Types.TIMESTAMP);
                    } else {
                        statement.setTimestamp(3, expires);
                    }
                    return 3;
                });
    }

    /**
     * Cancels the matching QUEUED and HELD mails.
     *
     * @param em     the persistence context, in a transaction
     * @param filter which mails; must not be empty
     * @return rows changed
     * @throws InvalidFilterException when the filter is empty
     * @throws PersistenceException   when the database refuses the update
     */
    public int cancel(EntityManager em, MailFilter filter) throws InvalidFilterException {
        return apply(em, filter, CANCELLABLE, null, "UPDATE MAIL_MESSAGE SET STATUS = 'CANCELLED'", statement -> 0);
    }

    /**
     * Deletes the matching mails except SENDING ones; their attempt rows go with them (ON DELETE CASCADE).
     *
     * @param em     the persistence context, in a transaction
     * @param filter which mails; must not be empty
     * @return mails deleted
     * @throws InvalidFilterException when the filter is empty
     * @throws PersistenceException   when the database refuses the delete
     */
    public int delete(EntityManager em, MailFilter filter) throws InvalidFilterException {
        return apply(em, filter, DELETABLE, null, "DELETE FROM MAIL_MESSAGE", statement -> 0);
    }

    /**
     * @param before a statement run first on each chunk of ids, ending in the id column (" IN (...)" is
     *               appended), or null
     */
    private int apply(EntityManager em, MailFilter filter, Set<MailStatus> allowed, String before, String statement,
                      Binder binder) throws InvalidFilterException {
        requireCriteria(filter);
        List<Long> ids = ids(em, filter, allowed);
        if (ids.isEmpty()) {
            return 0;
        }
        String statuses = allowed.stream().map(s -> "'" + s.name() + "'").collect(Collectors.joining(", "));
        Connection connection = em.unwrap(Connection.class);
        int changed = 0;
        try {
            for (int from = 0; from < ids.size(); from += CHUNK) {
                List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
                if (before != null) {
                    try (PreparedStatement first = connection.prepareStatement(before + " IN ("
                            + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")")) {
                        for (int i = 0; i < chunk.size(); i++) {
                            first.setLong(i + 1, chunk.get(i));
                        }
                        first.executeUpdate();
                    }
                }
                String sql = statement + " WHERE ID IN (" + String.join(", ", Collections.nCopies(chunk.size(), "?"))
                        + ") AND STATUS IN (" + statuses + ")";
                try (PreparedStatement update = connection.prepareStatement(sql)) {
                    int index = binder.bind(update);
                    for (Long id : chunk) {
                        update.setLong(++index, id);
                    }
                    changed += update.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw new PersistenceException("could not change " + ids.size() + " mails", e);
        }
        return changed;
    }

    /** @return ids of the mails the filter matches among those in {@code allowed} statuses */
    private static List<Long> ids(EntityManager em, MailFilter filter, Set<MailStatus> allowed) {
        if (MailCriteria.statuses(filter, allowed).isEmpty()) {
            return List.of();
        }
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaQuery<Long> select = cb.createQuery(Long.class);
        Root<MailMessage> mail = select.from(MailMessage.class);
        select.select(mail.get("id")).where(MailCriteria.of(cb, select, mail, filter, allowed));
        return em.createQuery(select).getResultList();
    }

    /** A bulk action without criteria would hit the whole table: refuse it; "all FAILED" is a criterion. */
    private static void requireCriteria(MailFilter filter) throws InvalidFilterException {
        if (filter == null || filter.isEmpty()) {
            throw new InvalidFilterException(List.of(new FieldError("filter",
                    "a bulk action needs at least one criterion (ids, statuses, recipient, sender, enqueuedBy,"
                            + " createdFrom, createdTo, errorText, bounced)")));
        }
    }

    /** Binds the statement's own parameters, before the ids. */
    @FunctionalInterface
    private interface Binder {
        /** @return how many parameters it bound */
        int bind(PreparedStatement statement) throws SQLException;
    }
}
