package dev.mailqueue.admin.control;

import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.MailAttempt;
import dev.mailqueue.queue.entity.MailMessage;
import dev.mailqueue.queue.entity.MailState;
import dev.mailqueue.queue.entity.QueuedMail;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.queue.entity.Utc;
import jakarta.persistence.criteria.AbstractQuery;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.Expression;
import jakarta.persistence.criteria.Path;
import jakarta.persistence.criteria.Predicate;
import jakarta.persistence.criteria.Root;
import jakarta.persistence.criteria.Subquery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Turns a {@link MailFilter} into JPA criteria predicates on {@link MailMessage} and, for what the mail's
 * state says, on the queue and the log (status) and on its {@link MailState} (last error), the same for a search and a bulk action, so an
 * operator's filter means the same rows in each. Text criteria become {@code LIKE '%text%'} with the wildcards
 * of the text escaped.
 */
public final class MailCriteria {

    private static final char ESCAPE = '\\';

    private MailCriteria() {
    }

    /**
     * The roots of a query on mails: the mail, and its state (the view MAIL_STATE, one row per mail) joined to it
     * by id, which enters the query only once a criterion, a column or the order asks for it: so a count
     * without criteria on the state reads MAIL_MESSAGE alone. Ask for {@link #state()} before {@link #of}, which
     * adds the join.
     */
    public static final class Roots {

        private final AbstractQuery<?> query;
        private final Root<MailMessage> mail;
        private Root<MailState> state;

        /** @param query a query; the mail's root is added to it */
        public Roots(AbstractQuery<?> query) {
            this.query = query;
            this.mail = query.from(MailMessage.class);
        }

        /** @return the mail */
        public Root<MailMessage> mail() {
            return mail;
        }

        /** @return the mail's state, added to the query on first use */
        public Root<MailState> state() {
            if (state == null) {
                state = query.from(MailState.class);
            }
            return state;
        }
    }

    /**
     * @param cb       the criteria builder
     * @param roots    the query's mail and, when used, its state
     * @param filter   the operator's filter
     * @param statuses the statuses the action applies to, intersected with the filter's; null for any
     * @return the predicates, all of which must hold, the state's join among them when the query reads the state;
     *         an empty array when nothing restricts the rows
     */
    public static Predicate[] of(CriteriaBuilder cb, Roots roots, MailFilter filter, Collection<MailStatus> statuses) {
        Root<MailMessage> mail = roots.mail();
        List<Predicate> where = new ArrayList<>();
        if (!filter.getIds().isEmpty()) {
            where.add(mail.get("id").in(filter.getIds()));
        }
        List<MailStatus> wanted = statuses(filter, statuses);
        if (wanted != null) {
            where.add(statusIn(cb, roots, wanted));
        }
        if (filter.getRecipient() != null) {
            String pattern = contains(filter.getRecipient());
            where.add(cb.or(cb.like(mail.get("toAddresses"), pattern, ESCAPE),
                    cb.like(mail.get("ccAddresses"), pattern, ESCAPE),
                    cb.like(mail.get("bccAddresses"), pattern, ESCAPE)));
        }
        if (filter.getSender() != null) {
            where.add(cb.like(mail.get("fromAddress"), contains(filter.getSender()), ESCAPE));
        }
        if (filter.getEnqueuedBy() != null) {
            where.add(cb.equal(mail.get("enqueuedBy"), filter.getEnqueuedBy()));
        }
        if (filter.getCampaign() != null) {
            where.add(cb.equal(mail.get("campaign"), filter.getCampaign()));
        }
        if (filter.getReference() != null) {
            where.add(cb.equal(mail.get("reference"), filter.getReference()));
        }
        if (filter.getTag() != null) { // TAGS is comma separated and a tag holds no comma
            where.add(cb.like(cb.concat(cb.concat(",", mail.<String>get("tags")), ","), contains("," + filter.getTag() + ","), ESCAPE));
        }
        Path<java.time.LocalDateTime> created = mail.get("createdAt");
        if (filter.getCreatedFrom() != null) {
            where.add(cb.greaterThanOrEqualTo(created, Utc.of(filter.getCreatedFrom())));
        }
        if (filter.getCreatedTo() != null) {
            where.add(cb.lessThan(created, Utc.of(filter.getCreatedTo())));
        }
        if (filter.getErrorText() != null) {
            where.add(cb.like(roots.state().get("lastError"), contains(filter.getErrorText()), ESCAPE));
        }
        if (filter.getSubject() != null) {
            Expression<String> subject = cb.lower(mail.get("subject"));
            for (String word : filter.getSubject().toLowerCase(java.util.Locale.ROOT).split("\\s+")) {
                if (!word.isEmpty()) {
                    where.add(cb.like(subject, contains(word), ESCAPE));
                }
            }
        }
        if (filter.getAccount() != null) {
            where.add(cb.equal(mail.get("smtpAccount"), filter.getAccount()));
        }
        if (filter.getBounced() != null) {
            Subquery<Long> bounces = roots.query.subquery(Long.class);
            Root<MailAttempt> attempt = bounces.from(MailAttempt.class);
            Expression<Integer> code = attempt.get("smtpReplyCode");
            // RFC 5321 §4.2.1: 5yz, permanent negative completion; or a bounce or complaint that came back later.
            // Of the mail's log, the attempt log only: its other rows are no answer of a server.
            bounces.select(attempt.get("id")).where(cb.equal(attempt.get("mailId"), mail.get("id")),
                    attempt.get("outcome").in(AttemptOutcome.SHOWN),
                    cb.or(cb.between(code, 500, 599), attempt.get("outcome").in(AttemptOutcome.BOUNCED,
                            AttemptOutcome.COMPLAINED)));
            where.add(filter.getBounced() ? cb.exists(bounces) : cb.not(cb.exists(bounces)));
        }
        if (roots.state != null) {
            where.add(cb.equal(roots.state.get("mailId"), mail.get("id")));
        }
        return where.toArray(new Predicate[0]);
    }

    /**
     * The mail's status is one of {@code wanted}, said without the view MAIL_STATE (which works the status out
     * for every mail it meets): QUEUED and SENDING are a MAIL_QUEUE row without or with a claimer; a status of
     * a mail out of the queue is that of its latest log row that records one. Each is an index lookup by the
     * mail's id (the queue's primary key; MAIL_ATTEMPT's index on mail id and id).
     */
    static Predicate statusIn(CriteriaBuilder cb, Roots roots, List<MailStatus> wanted) {
        Path<Long> id = roots.mail().get("id");
        List<Predicate> any = new ArrayList<>();
        boolean queued = wanted.contains(MailStatus.QUEUED);
        boolean sending = wanted.contains(MailStatus.SENDING);
        if (queued || sending) {
            Subquery<Long> inQueue = roots.query.subquery(Long.class);
            Root<QueuedMail> row = inQueue.from(QueuedMail.class);
            Predicate held = queued && sending ? cb.conjunction()
                    : queued ? cb.isNull(row.get("claimer")) : cb.isNotNull(row.get("claimer"));
            inQueue.select(row.get("mailId")).where(cb.equal(row.get("mailId"), id), held);
            any.add(cb.exists(inQueue));
        }
        List<MailStatus> logged = wanted.stream().filter(w -> !MailLifecycle.LIVE.contains(w)).toList();
        if (!logged.isEmpty()) {
            Subquery<Long> recorded = roots.query.subquery(Long.class);
            Root<MailAttempt> row = recorded.from(MailAttempt.class);
            Subquery<Long> later = recorded.subquery(Long.class);
            Root<MailAttempt> next = later.from(MailAttempt.class);
            later.select(next.get("id")).where(cb.equal(next.get("mailId"), row.get("mailId")),
                    cb.gt(next.get("id"), row.get("id")), cb.isNotNull(next.get("mailStatus")));
            recorded.select(row.get("id")).where(cb.equal(row.get("mailId"), id), row.get("mailStatus").in(logged),
                    cb.not(cb.exists(later)));
            Subquery<Long> inQueue = roots.query.subquery(Long.class);
            Root<QueuedMail> queueRow = inQueue.from(QueuedMail.class);
            inQueue.select(queueRow.get("mailId")).where(cb.equal(queueRow.get("mailId"), id));
            any.add(cb.and(cb.exists(recorded), cb.not(cb.exists(inQueue))));
        }
        return any.isEmpty() ? cb.disjunction() : cb.or(any.toArray(new Predicate[0]));
    }

    /**
     * @return the statuses to restrict to: the filter's, intersected with {@code allowed} when given;
     *         null when neither restricts; an empty list when the intersection is empty (no row matches)
     */
    static List<MailStatus> statuses(MailFilter filter, Collection<MailStatus> allowed) {
        if (filter.getStatuses().isEmpty()) {
            return allowed == null ? null : new ArrayList<>(allowed);
        }
        List<MailStatus> result = new ArrayList<>(filter.getStatuses());
        if (allowed != null) {
            result.retainAll(allowed);
        }
        return result;
    }

    /** @return a LIKE pattern matching any value that contains {@code text} literally */
    static String contains(String text) {
        StringBuilder pattern = new StringBuilder("%");
        for (char c : text.toCharArray()) {
            if (c == '%' || c == '_' || c == ESCAPE) {
                pattern.append(ESCAPE);
            }
            pattern.append(c);
        }
        return pattern.append('%').toString();
    }
}
