package dev.mailqueue.api;

import java.util.ArrayList;
import java.util.List;

/**
 * Thrown when a search of mails ran longer than a search may ({@code mailqueue.admin.search-timeout.ms}) and the
 * database stopped it: a criterion that no index serves (a part of a recipient's or sender's address, of an error
 * text or a subject) made it read every mail the other criteria left, and there are too many. Nothing was changed.
 * Names each such criterion given, or {@code filter} when none was; narrowing the search (a time range, a status, a
 * full reference) lets it finish. A kind of {@link InvalidFilterException}, so that callers that handle that one
 * handle this one too. REST answers 422 with the type {@code urn:mailqueue:problem:search-timeout}.
 */
public class SearchTimeoutException extends InvalidFilterException {

    private static final long serialVersionUID = 1L;

    private final long timeoutMillis;

    /**
     * @param filter        the search's filter
     * @param timeoutMillis how long it was allowed, in ms
     */
    public SearchTimeoutException(MailFilter filter, long timeoutMillis) {
        super(errors(filter, timeoutMillis));
        this.timeoutMillis = timeoutMillis;
    }

    /** @return how long the search was allowed, in ms (1 or more) */
    public long getTimeoutMillis() {
        return timeoutMillis;
    }

    private static List<FieldError> errors(MailFilter filter, long timeoutMillis) {
        String why = "the search ran longer than " + timeoutMillis + " ms and was stopped: narrow it with createdFrom"
                + " and createdTo, statuses or another exact criterion";
        List<FieldError> errors = new ArrayList<>();
        if (filter.getRecipient() != null) {
            errors.add(new FieldError("recipient", why));
        }
        if (filter.getSender() != null) {
            errors.add(new FieldError("sender", why));
        }
        if (filter.getErrorText() != null) {
            errors.add(new FieldError("errorText", why));
        }
        if (filter.getSubject() != null) {
            errors.add(new FieldError("subject", why));
        }
        if (errors.isEmpty()) {
            errors.add(new FieldError("filter", why));
        }
        return errors;
    }
}
