package dev.mailqueue.admin.control;

import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailAdmin;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailPage;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.AddressLists;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.persistence.Tuple;
import jakarta.persistence.criteria.Selection;
import jakarta.persistence.EntityManager;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.Order;
import jakarta.persistence.criteria.Root;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One page of the mails a filter matches, in the order asked for, and how many match in all. Sorts by
 * a whitelisted attribute, then by id, so pages are stable while rows are added.
 */
public final class MailSearch {

    /** Attributes a search may sort by. */
    static final Set<String> SORTABLE = Set.of("id", "createdAt", "status", "priority", "notBefore", "sentAt",
            "lastAttemptAt");

    private MailSearch() {
    }

    /**
     * @param em     the persistence context
     * @param filter which mails
     * @param page   from 0
     * @param size   1 to {@link MailAdmin#MAX_PAGE_SIZE}
     * @param sort   {@code field[,asc|desc]}, null for {@code id,desc}
     * @return the page, mails without their attempt logs
     * @throws InvalidFilterException naming {@code page}, {@code size} or {@code sort} when out of range (page
     *                                times size must not exceed {@link Integer#MAX_VALUE}), or a criterion
     *                                that {@link FilterRules} refuses
     */
    public static MailPage page(EntityManager em, MailFilter filter, int page, int size, String sort)
            throws InvalidFilterException {
        List<FieldError> errors = new ArrayList<>();
        if (page < 0) {
            errors.add(new FieldError("page", "must be 0 or more"));
        }
        if (size < 1 || size > MailAdmin.MAX_PAGE_SIZE) {
            errors.add(new FieldError("size", "must be between 1 and " + MailAdmin.MAX_PAGE_SIZE));
        } else if (page > 0 && (long) page * size > Integer.MAX_VALUE) {
            // The offset page * size must fit JPA's int first result (JDBC drivers and databases take no more).
            errors.add(new FieldError("page", "must be at most " + Integer.MAX_VALUE / size + " with size " + size));
        }
        String field = "id";
        boolean ascending = false;
        if (sort != null && !sort.isBlank()) {
            String[] parts = sort.split(",", 2);
            field = parts[0].strip();
            String direction = parts.length > 1 ? parts[1].strip().toLowerCase(Locale.ROOT) : "asc";
            if (!SORTABLE.contains(field)) {
                errors.add(new FieldError("sort", "must name one of " + SORTABLE));
            }
            if (!direction.equals("asc") && !direction.equals("desc")) {
                errors.add(new FieldError("sort", "direction must be asc or desc"));
            }
            ascending = direction.equals("asc");
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
        FilterRules.check(filter);

        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaQuery<Tuple> select = cb.createTupleQuery();
        Root<MailMessage> mail = select.from(MailMessage.class);
        // The columns of the view only: not the bodies, which may be megabytes each.
        select.multiselect(MailViews.SUMMARY_COLUMNS.stream().map(c -> mail.get(c).alias(c)).toArray(Selection[]::new))
                .where(MailCriteria.of(cb, select, mail, filter, null));
        List<Order> order = new ArrayList<>();
        order.add(ascending ? cb.asc(mail.get(field)) : cb.desc(mail.get(field)));
        if (!field.equals("id")) {
            order.add(ascending ? cb.asc(mail.get("id")) : cb.desc(mail.get("id")));
        }
        select.orderBy(order);
        List<MailView> mails = em.createQuery(select)
                .setFirstResult(Math.multiplyExact(page, size)).setMaxResults(size)
                .getResultStream().map(MailViews::summary).toList();

        CriteriaQuery<Long> count = cb.createQuery(Long.class);
        Root<MailMessage> counted = count.from(MailMessage.class);
        count.select(cb.count(counted)).where(MailCriteria.of(cb, count, counted, filter, null));
        return new MailPage(mails, em.createQuery(count).getSingleResult(), page, size);
    }
}
