package dev.mailqueue.admin.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.validation.PlainTextValidator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a filter's criteria must be before a search or a bulk action runs, so that a value the
 * database cannot take is a 400 naming it rather than a database error (or, with EclipseLink's
 * retries on what it takes for a lost connection, a 500 ten seconds later), and so that a criterion
 * cannot look set yet match every mail:
 * <ul>
 *   <li>a text criterion ({@code recipient}, {@code sender}, {@code enqueuedBy}, {@code errorText}) is not
 *       blank (leave it out to match any), is at most {@value #TEXT_CHARS} characters, and is plain
 *       single-line text ({@link PlainTextValidator}: no NUL, CR, LF or other control characters);</li>
 *   <li>{@code createdFrom} and {@code createdTo} lie from {@link MailLimits#EARLIEST_INSTANT} to
 *       {@link MailLimits#LATEST_INSTANT};</li>
 *   <li>{@code ids} has at most {@value #IDS} entries and {@code ids} and {@code statuses} no null.</li>
 * </ul>
 */
public final class FilterRules {

    /** Longest text criterion, in characters: the longest text the queue stores in one line (RFC 5322 2.1.1). */
    public static final int TEXT_CHARS = 998;

    /** Most ids one filter may name: a search or action by id is for a handful of mails, not a table. */
    public static final int IDS = 1_000;

    private FilterRules() {
    }

    /**
     * @param filter the filter, may be null (no criteria)
     * @throws InvalidFilterException naming every criterion at fault
     */
    public static void check(MailFilter filter) throws InvalidFilterException {
        if (filter == null) {
            return;
        }
        List<FieldError> errors = new ArrayList<>();
        text("recipient", filter.getRecipient(), errors);
        text("sender", filter.getSender(), errors);
        text("enqueuedBy", filter.getEnqueuedBy(), errors);
        text("campaign", filter.getCampaign(), errors);
        text("tag", filter.getTag(), errors);
        text("reference", filter.getReference(), errors);
        text("errorText", filter.getErrorText(), errors);
        text("subject", filter.getSubject(), errors);
        text("account", filter.getAccount(), errors);
        instant("createdFrom", filter, true, errors);
        instant("createdTo", filter, false, errors);
        if (filter.getIds().size() > IDS) {
            errors.add(new FieldError("ids", "at most " + IDS + " ids, got " + filter.getIds().size()));
        }
        for (int i = 0; i < filter.getIds().size(); i++) {
            if (filter.getIds().get(i) == null) {
                errors.add(new FieldError("ids[" + i + "]", "must not be null"));
            }
        }
        for (int i = 0; i < filter.getStatuses().size(); i++) {
            if (filter.getStatuses().get(i) == null) {
                errors.add(new FieldError("statuses[" + i + "]", "must not be null"));
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
    }

    private static void text(String field, String value, List<FieldError> errors) {
        if (value == null) {
            return;
        }
        if (value.isBlank()) {
            errors.add(new FieldError(field, "must not be blank: leave it out to match any mail"));
        } else if (value.length() > TEXT_CHARS) {
            errors.add(new FieldError(field, "must be at most " + TEXT_CHARS + " characters"));
        } else {
            String problem = PlainTextValidator.problemWith(value, false);
            if (problem != null) {
                errors.add(new FieldError(field, problem));
            }
        }
    }

    private static void instant(String field, MailFilter filter, boolean from, List<FieldError> errors) {
        Instant value;
        try {
            value = from ? filter.getCreatedFrom() : filter.getCreatedTo();
        } catch (RuntimeException e) { // a remote caller's text that is no instant
            errors.add(new FieldError(field, "is not an ISO-8601 instant"));
            return;
        }
        if (value != null && !MailLimits.storable(value)) {
            errors.add(new FieldError(field, "must lie from " + MailLimits.EARLIEST_INSTANT + " to "
                    + MailLimits.LATEST_INSTANT));
        }
    }
}
