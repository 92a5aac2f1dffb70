package dev.mailqueue.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when a search or bulk action's filter, paging or sort is not usable: an unknown sort field,
 * a page size out of range, a bulk action without any criterion. Names each field at fault. Nothing
 * is changed. REST answers 400.
 */
public class InvalidFilterException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    private final ArrayList<FieldError> errors; // a plain ArrayList marshals over IIOP

    /** @param errors the broken rules, at least one */
    public InvalidFilterException(List<FieldError> errors) {
        super("Invalid filter: " + errors.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
        this.errors = new ArrayList<>(errors);
    }

    /** @return the broken rules, one per field */
    public List<FieldError> getErrors() {
        return Collections.unmodifiableList(errors);
    }
}
