package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import jakarta.ws.rs.core.MultivaluedMap;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads a {@link MailFilter} and the paging from query parameters: {@code id} and {@code status}
 * (repeatable or comma separated), {@code recipient}, {@code sender}, {@code enqueuedBy}, {@code campaign}, {@code tag}, {@code reference},
 * {@code createdFrom} and {@code createdTo} (ISO-8601 instants), {@code errorText}, {@code bounced}
 * (true/false); {@code page} and {@code size} (whole numbers). A value that does not parse is an
 * {@link InvalidFilterException} naming the parameter, without echoing the value; what a parsed value
 * must be (ranges, characters) is the queue's rule ({@code FilterRules}, {@code MailSearch}). An empty
 * text parameter ({@code sender=}) means no such criterion, as a search form sends it.
 */
final class FilterParameters {

    private FilterParameters() {
    }

    static MailFilter parse(MultivaluedMap<String, String> query) throws InvalidFilterException {
        List<FieldError> errors = new ArrayList<>();
        MailFilter filter = new MailFilter();
        List<Long> ids = new ArrayList<>();
        for (String id : values(query, "id")) {
            try {
                ids.add(Long.parseLong(id));
            } catch (NumberFormatException e) {
                errors.add(new FieldError("id", "must be whole numbers"));
            }
        }
        filter.setIds(ids);
        List<MailStatus> statuses = new ArrayList<>();
        for (String status : values(query, "status")) {
            try {
                statuses.add(MailStatus.valueOf(status.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("status", "must be among " + Arrays.toString(MailStatus.values())));
            }
        }
        filter.setStatuses(statuses);
        filter.setRecipient(text(query, "recipient"));
        filter.setSender(text(query, "sender"));
        filter.setEnqueuedBy(text(query, "enqueuedBy"));
        filter.setCampaign(text(query, "campaign"));
        filter.setTag(text(query, "tag"));
        filter.setReference(text(query, "reference"));
        filter.setErrorText(text(query, "errorText"));
        filter.setSubject(text(query, "subject"));
        filter.setAccount(text(query, "account"));
        filter.setCreatedFrom(instant(query, "createdFrom", errors));
        filter.setCreatedTo(instant(query, "createdTo", errors));
        String bounced = text(query, "bounced");
        if (bounced != null) {
            if (bounced.equalsIgnoreCase("true") || bounced.equalsIgnoreCase("false")) {
                filter.setBounced(Boolean.parseBoolean(bounced));
            } else {
                errors.add(new FieldError("bounced", "must be true or false"));
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
        return filter;
    }

    /**
     * @param query        the query parameters
     * @param name         {@code page} or {@code size}
     * @param defaultValue the value when the parameter is absent or empty
     * @param errors       where a value that is no whole number is reported, named {@code name}
     * @return the value, or {@code defaultValue} when absent or malformed
     */
    static int whole(MultivaluedMap<String, String> query, String name, int defaultValue, List<FieldError> errors) {
        List<String> values = query.getOrDefault(name, List.of());
        if (values.size() > 1) {
            errors.add(new FieldError(name, "must be given once"));
            return defaultValue;
        }
        String value = text(query, name);
        if (value == null) {
            return defaultValue;
        }
        if (!value.matches("[+-]?[0-9]{1,10}")) {
            errors.add(new FieldError(name, "must be a whole number"));
            return defaultValue;
        }
        long parsed = Long.parseLong(value);
        if (parsed < Integer.MIN_VALUE || parsed > Integer.MAX_VALUE) {
            errors.add(new FieldError(name, "must be a whole number up to " + Integer.MAX_VALUE));
            return defaultValue;
        }
        return (int) parsed;
    }

    private static List<String> values(MultivaluedMap<String, String> query, String name) {
        List<String> values = new ArrayList<>();
        for (String value : query.getOrDefault(name, List.of())) {
            for (String part : value.split(",")) {
                if (!part.isBlank()) {
                    values.add(part.strip());
                }
            }
        }
        return values;
    }

    private static String text(MultivaluedMap<String, String> query, String name) {
        String value = query.getFirst(name);
        return value == null || value.isBlank() ? null : value;
    }

    private static Instant instant(MultivaluedMap<String, String> query, String name, List<FieldError> errors) {
        String value = text(query, name);
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(name, "must be an ISO-8601 instant such as 2026-11-21T09:00:00Z"));
            return null;
        }
    }
}
