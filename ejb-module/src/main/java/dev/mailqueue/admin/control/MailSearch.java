package dev.mailqueue.admin.control;

import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailAdmin;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailPage;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.SearchTimeoutException;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.queue.entity.AddressLists;
import dev.mailqueue.queue.entity.MailMessage;
import dev.mailqueue.queue.entity.MailState;
import dev.mailqueue.queue.entity.Utc;
import jakarta.persistence.Tuple;
import jakarta.persistence.criteria.Selection;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.Query;
import jakarta.persistence.QueryTimeoutException;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.Order;
import jakarta.persistence.criteria.Path;
import jakarta.persistence.criteria.Root;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One page of the mails a filter matches, in the order asked for, and how many match in all. Sorts by
 * a whitelisted attribute, then by id, so pages are stable while rows are added. A page reads the state
 * ({@link MailState}) of its mails only; the count reads it only when a criterion is on it (a status, an error
 * text). Sorting by an attribute of the state (status, notBefore, sentAt, lastAttemptAt) orders every mail the
 * filter matches by a value the view computes: no index serves it. The exception: mails of statuses out of the
 * queue and no other criterion, sorted by {@code finishedAt}, which the log's status index serves in that order
 * ({@link FinishedOrder}): the console's FAILED page.
 */
public final class MailSearch {

    /** Attributes a search may sort by. */
    static final Set<String> SORTABLE = Set.of("id", "createdAt", "status", "priority", "notBefore", "sentAt",
            "lastAttemptAt", "finishedAt");

    /** The sortable attributes that are the state's, by the name a search knows them by: the {@link MailState}'s. */
    private static final Map<String, String> SORTABLE_STATE = Map.of("status", "status", "notBefore", "dueAt",
            "sentAt", "sentAt", "lastAttemptAt", "lastAttemptAt", "finishedAt", "finishedAt");

    /** The JPA hint for a query's timeout, in ms (Jakarta Persistence 3.1 §3.11.2). */
    static final String TIMEOUT_HINT = "jakarta.persistence.query.timeout";

    /**
     * SQLStates of a statement the database stopped at its timeout: PostgreSQL 57014 (query_canceled), Derby XCL52
     * (statement cancelled or timed out), MariaDB 70100 (query interrupted).
     */
    static final Set<String> TIMEOUT_STATES = Set.of("57014", "XCL52", "70100");

    private MailSearch() {
    }

    /**
     * @param em     the persistence context
     * @param filter which mails
     * @param page   from 0
     * @param size   1 to {@link MailAdmin#MAX_PAGE_SIZE}
     * @param sort   {@code field[,asc|desc]}, null for {@code id,desc}
     * @param timeoutMillis how long each of the search's two statements (the page, the count) may run, in ms, 0 for
     *                      no limit; the database counts whole seconds, so it is rounded up to one
     * @return the page, mails without their attempt logs
     * @throws InvalidFilterException naming {@code page}, {@code size} or {@code sort} when out of range (page
     *                                times size must not exceed {@link Integer#MAX_VALUE}), or a criterion
     *                                that {@link FilterRules} refuses
     * @throws SearchTimeoutException when the database stopped a statement at the timeout; the transaction must
     *                                roll back (on PostgreSQL it can do nothing else)
     */
    public static MailPage page(EntityManager em, MailFilter filter, int page, int size, String sort,
                                long timeoutMillis) throws InvalidFilterException {
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

        try {
            return read(em, filter, field, ascending, page, size, timeoutMillis);
        } catch (PersistenceException e) {
            if (timeoutMillis > 0 && stoppedAtTimeout(e)) {
                throw new SearchTimeoutException(filter, timeoutMillis);
            }
            throw e;
        }
    }

    /** The page of a search whose page, size and sort were checked; see {@link #page}. */
    private static MailPage read(EntityManager em, MailFilter filter, String field, boolean ascending, int page,
                                 int size, long timeoutMillis) {
        MailFilter matching = filter;
        int offset = Math.multiplyExact(page, size);
        if (field.equals("finishedAt") && FinishedOrder.serves(filter)) {
            // The page's ids from the log's status index, in order; then their summaries, as any search reads them.
            List<Long> ids = FinishedOrder.ids(em, Set.copyOf(filter.getStatuses()), ascending, offset, size,
                    q -> limited(q, timeoutMillis));
            if (ids.isEmpty()) {
                return new MailPage(List.of(), total(em, filter, timeoutMillis), page, size);
            }
            matching = new MailFilter().withIds(ids.toArray(Long[]::new));
            offset = 0;
        }
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaQuery<Tuple> select = cb.createTupleQuery();
        MailCriteria.Roots roots = new MailCriteria.Roots(select);
        Root<MailMessage> mail = roots.mail();
        Root<MailState> state = roots.state();
        // The columns of the view only: not the bodies, which may be megabytes each.
        List<Selection<?>> columns = new ArrayList<>();
        MailViews.SUMMARY_COLUMNS.forEach(c -> columns.add(mail.get(c).alias(c)));
        MailViews.SUMMARY_STATE_COLUMNS.forEach((alias, attribute) -> columns.add(state.get(attribute).alias(alias)));
        Path<?> sorted = SORTABLE_STATE.containsKey(field) ? state.get(SORTABLE_STATE.get(field)) : mail.get(field);
        List<Order> order = new ArrayList<>();
        order.add(ascending ? cb.asc(sorted) : cb.desc(sorted));
        if (!field.equals("id")) {
            order.add(ascending ? cb.asc(mail.get("id")) : cb.desc(mail.get("id")));
        }
        select.multiselect(columns).where(MailCriteria.of(cb, roots, matching, null)).orderBy(order);
        List<MailView> mails = limited(em.createQuery(select), timeoutMillis)
                .setFirstResult(offset).setMaxResults(size)
                .getResultStream().map(MailViews::summary).toList();
        return new MailPage(mails, total(em, filter, timeoutMillis), page, size);
    }

    /** @return the query, with the JPA timeout hint in ms rounded up to whole seconds, when there is a limit */
    private static <Q extends Query> Q limited(Q query, long timeoutMillis) {
        if (timeoutMillis > 0) {
            query.setHint(TIMEOUT_HINT, (timeoutMillis + 999) / 1000 * 1000);
        }
        return query;
    }

    /**
     * @return whether the database stopped a statement at its timeout: a {@link QueryTimeoutException} or, in the
     *         causes, a {@link SQLTimeoutException} or an SQLState the database gives a cancelled statement
     *         ({@link #TIMEOUT_STATES})
     */
    static boolean stoppedAtTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof QueryTimeoutException || t instanceof SQLTimeoutException
                    || t instanceof SQLException sql && TIMEOUT_STATES.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return how many mails the filter matches: for no criterion or statuses alone, the sum of those statuses'
     *         counts ({@link StatisticsReader#countsByStatus}, the same at any size of history; without counting the
     *         queue's rows when no status is live); else a count of the matching rows
     */
    static long total(EntityManager em, MailFilter filter, long timeoutMillis) {
        if (filter.onlyStatuses()) {
            Set<MailStatus> statuses = filter.getStatuses().isEmpty() ? EnumSet.allOf(MailStatus.class)
                    : EnumSet.copyOf(filter.getStatuses());
            // Statuses of mails out of the queue only (the FAILED page): their kept counts, without counting the queue.
            Map<MailStatus, Long> counts = statuses.stream().anyMatch(MailLifecycle.LIVE::contains)
                    ? StatisticsReader.countsByStatus(em) : StatisticsReader.keptCounts(em);
            return statuses.stream().mapToLong(s -> counts.getOrDefault(s, 0L)).sum();
        }
        CriteriaBuilder cb = em.getCriteriaBuilder();
        CriteriaQuery<Long> count = cb.createQuery(Long.class);
        MailCriteria.Roots counted = new MailCriteria.Roots(count);
        count.select(cb.count(counted.mail())).where(MailCriteria.of(cb, counted, filter, null));
        return limited(em.createQuery(count), timeoutMillis).getSingleResult();
    }
}
