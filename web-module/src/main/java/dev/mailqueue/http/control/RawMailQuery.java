package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.RawMail;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Binds the query of {@code POST /api/mails} with a {@code message/rfc822} body to a {@link RawMail}, as
 * strictly as the JSON of a composed mail is bound: a parameter the API does not know, a single-valued one
 * given twice, an empty value, a priority that is not a whole number and a time that is not an ISO-8601
 * instant are each refused, named. Parameters: {@code from} (the envelope sender), {@code to} (repeated: the
 * envelope recipients), {@code priority}, {@code notBefore}, {@code expiresAt}, {@code account},
 * {@code campaign}, {@code reference}, {@code tag} (repeated) and {@code unsubscribeList}. The rules of the
 * values themselves (an address, a priority of 0 to 9, ...) are the queue's, checked when it is enqueued.
 */
public final class RawMailQuery {

    private static final Set<String> SINGLE = Set.of("from", "priority", "notBefore", "expiresAt", "account",
            "campaign", "reference", "unsubscribeList");

    private static final Set<String> REPEATED = Set.of("to", "tag");

    private RawMailQuery() {
    }

    /**
     * @param message the request body
     * @param query   the decoded query parameters
     * @param errors  where each parameter at fault is named
     * @return the raw mail; complete only when no error was added
     */
    public static RawMail bind(byte[] message, Map<String, List<String>> query, List<FieldError> errors) {
        RawMail mail = new RawMail(message);
        for (String name : new TreeSet<>(query.keySet())) {
            List<String> values = query.get(name);
            if (!SINGLE.contains(name) && !REPEATED.contains(name)) {
                errors.add(new FieldError(name, "is not a parameter of a raw mail (from, to, priority, notBefore,"
                        + " expiresAt, account, campaign, reference, tag, unsubscribeList)"));
                continue;
            }
            if (SINGLE.contains(name) && values.size() > 1) {
                errors.add(new FieldError(name, "is given " + values.size() + " times; give it once"));
                continue;
            }
            if (values.stream().anyMatch(String::isEmpty)) {
                errors.add(new FieldError(name, "must not be empty"));
                continue;
            }
            String value = values.get(0);
            switch (name) {
                case "from" -> mail.setEnvelopeFrom(value);
                case "to" -> mail.setEnvelopeTo(values);
                case "tag" -> mail.setTags(values);
                case "priority" -> mail.setPriority(priority(value, errors));
                case "notBefore" -> mail.setNotBefore(instant(name, value, errors));
                case "expiresAt" -> mail.setExpiresAt(instant(name, value, errors));
                case "account" -> mail.setAccount(value);
                case "campaign" -> mail.setCampaign(value);
                case "reference" -> mail.setReference(value);
                default -> mail.setUnsubscribeList(value);
            }
        }
        return mail;
    }

    /**
     * @param field a field as the queue names it for a raw mail ({@code envelopeFrom}, {@code envelopeTo[2]})
     * @return the same field as this API names it ({@code from}, {@code to[2]})
     */
    public static String parameter(String field) {
        if (field.equals("envelopeFrom")) {
            return "from";
        }
        return field.startsWith("envelopeTo") ? "to" + field.substring("envelopeTo".length()) : field;
    }

    private static Integer priority(String value, List<FieldError> errors) {
        if (value.length() <= 2 && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Integer.valueOf(value);
        }
        errors.add(new FieldError("priority", "must be a whole number from 0 to 9"));
        return null;
    }

    private static Instant instant(String name, String value, List<FieldError> errors) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(name, "must be an ISO-8601 instant, e.g. 2026-12-01T08:00:00Z"));
            return null;
        }
    }
}
