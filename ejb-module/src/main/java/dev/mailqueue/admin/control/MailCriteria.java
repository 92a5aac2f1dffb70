package dev.mailqueue.admin.control;

import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.persistence.criteria.CommonAbstractCriteria;
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
 * Turns a {@link MailFilter} into JPA criteria predicates on {@link MailMessage}, the same for a
 * search, a bulk update and a bulk delete, so an operator's filter means the same rows in each. Text
 * criteria become {@code LIKE '%text%'} with the wildcards of the text escaped.
 */
public final class MailCriteria {

    private static final char ESCAPE = '\\';

    private MailCriteria() {
    }

    /**
     * @param cb       the criteria builder
     * @param query    the query, update or delete the predicates belong to (for the bounce subquery)
     * @param mail     the mail root
     * @param filter   the operator's filter
     * @param statuses the statuses the action applies to, intersected with the filter's; null for any
     * @return the predicates, all of which must hold; an empty array when nothing restricts the rows
     */
    public static Predicate[] of(CriteriaBuilder cb, CommonAbstractCriteria query, Root<MailMessage> mail,
                                 MailFilter filter, Collection<MailStatus> statuses) {
        List<Predicate> where = new ArrayList<>();
        if (!filter.getIds().isEmpty()) {
            where.add(mail.get("id").in(filter.getIds()));
        }
        List<MailStatus> wanted = statuses(filter, statuses);
        if (wanted != null) {
            where.add(mail.get("status").in(wanted));
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
            where.add(cb.like(mail.get("lastError"), contains(filter.getErrorText()), ESCAPE));
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
            Subquery<Long> bounces = query.subquery(Long.class);
            Root<MailAttempt> attempt = bounces.from(MailAttempt.class);
            Expression<Integer> code = attempt.get("smtpReplyCode");
            // RFC 5321 §4.2.1: 5yz, permanent negative completion; or a bounce or complaint that came back later
            bounces.select(attempt.get("id")).where(cb.equal(attempt.get("mailId"), mail.get("id")),
                    cb.or(cb.between(code, 500, 599), attempt.get("outcome").in(AttemptOutcome.BOUNCED,
                            AttemptOutcome.COMPLAINED)));
            where.add(filter.getBounced() ? cb.exists(bounces) : cb.not(cb.exists(bounces)));
        }
        return where.toArray(new Predicate[0]);
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
