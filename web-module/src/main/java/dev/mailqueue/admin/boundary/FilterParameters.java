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
 * Reads a {@link MailFilter} from query parameters: {@code id} and {@code status} (repeatable or comma
 * separated), {@code recipient}, {@code sender}, {@code enqueuedBy}, {@code createdFrom} and
 * {@code createdTo} (ISO-8601 instants), {@code errorText}, {@code bounced} (true/false). A value that
 * does not parse is an {@link InvalidFilterException} naming the parameter.
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
                errors.add(new FieldError("id", "is not a number: " + id));
            }
        }
        filter.setIds(ids);
        List<MailStatus> statuses = new ArrayList<>();
        for (String status : values(query, "status")) {
            try {
                statuses.add(MailStatus.valueOf(status.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("status", "is not one of " + Arrays.toString(MailStatus.values())
                        + ": " + status));
            }
        }
        filter.setStatuses(statuses);
        filter.setRecipient(text(query, "recipient"));
        filter.setSender(text(query, "sender"));
        filter.setEnqueuedBy(text(query, "enqueuedBy"));
        filter.setErrorText(text(query, "errorText"));
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
            errors.add(new FieldError(name, "is not an ISO-8601 instant such as 2026-11-21T09:00:00Z: " + value));
            return null;
        }
    }
}
