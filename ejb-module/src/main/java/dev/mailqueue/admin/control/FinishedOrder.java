package dev.mailqueue.admin.control;

import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.control.MailLifecycle;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The page of a search for mails out of the queue in one or more statuses (FAILED, SENT, HELD, ...; no other
 * criterion), sorted by when they got that status ({@code sort=finishedAt}): read from the log's status index
 * ({@code MAIL_ATTEMPT (MAIL_STATUS, FINISHED_AT)}, V13) in that order, a row at a time until the page is full, each
 * row kept when it is its mail's latest that records a status and the mail is out of the queue, which is how the view
 * {@code MAIL_STATE} tells a mail's status and {@code finishedAt}. So the first page of FAILED mails reads about as
 * many log rows as it shows, however many mails the history and the queue hold; sorted by id, the same page walks the
 * mails newest first through the view until it has found enough FAILED ones (a million queued mails with newer ids: a
 * million mails read).
 */
final class FinishedOrder {

    private FinishedOrder() {
    }

    /**
     * @param filter the search's filter
     * @return whether it names statuses and nothing else, none of them live (QUEUED, SENDING: their order is the
     *         queue's, not the log's)
     */
    static boolean serves(MailFilter filter) {
        return filter.onlyStatuses() && !filter.getStatuses().isEmpty()
                && filter.getStatuses().stream().noneMatch(MailLifecycle.LIVE::contains);
    }

    /**
     * @param statuses  the statuses, none live
     * @param ascending oldest first, or newest first
     * @return the statement that lists the ids of their mails in the page's order, without its limits
     */
    static String sql(Set<MailStatus> statuses, boolean ascending) {
        String direction = ascending ? "ASC" : "DESC";
        return "SELECT a.MAIL_ID FROM MAIL_ATTEMPT a WHERE a.MAIL_STATUS IN ("
                + MailLifecycle.literals(EnumSet.copyOf(statuses)) + ") AND a.MAIL_ID IS NOT NULL"
                + " AND " + MailLifecycle.LATEST_STATUS_OUT_OF_QUEUE
                + " ORDER BY a.FINISHED_AT " + direction + ", a.MAIL_ID " + direction;
    }

    /**
     * The page's limits are in the statement (SQL:2008 {@code OFFSET ... ROWS FETCH NEXT ... ROWS ONLY}, which Derby,
     * PostgreSQL and MariaDB 10.6+ take), not set through JPA: EclipseLink applies a native query's first result and
     * max results in JDBC, so PostgreSQL would plan for every row instead of the first few.
     *
     * @param statuses  the statuses, none live
     * @param ascending oldest first, or newest first
     * @param offset    rows to skip, 0 or more
     * @param size      rows of the page, 1 or more
     * @return the statement that lists the ids of the page's mails in its order
     */
    static String page(Set<MailStatus> statuses, boolean ascending, int offset, int size) {
        return sql(statuses, ascending) + " OFFSET " + offset + " ROWS FETCH NEXT " + size + " ROWS ONLY";
    }

    /**
     * @param em        the persistence context
     * @param statuses  the statuses, none live ({@link #serves})
     * @param ascending oldest first, or newest first
     * @param offset    rows to skip, 0 or more
     * @param size      rows of the page, 1 or more
     * @param limited   sets the statement's timeout on the query, as the search's other statements get it
     * @return the ids of the page's mails, in the page's order: by finish time, then by id, both in the direction asked
     */
    static List<Long> ids(EntityManager em, Set<MailStatus> statuses, boolean ascending, int offset, int size,
                          java.util.function.UnaryOperator<Query> limited) {
        Query query = em.createNativeQuery(page(statuses, ascending, offset, size));
        @SuppressWarnings("unchecked")
        List<Object> rows = limited.apply(query).getResultList();
        return rows.stream().map(r -> ((Number) r).longValue()).toList();
    }
}
