package dev.mailqueue.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when an erasure cannot be made as asked: no address, more than the limit, an address that is not one.
 * Names each field at fault ({@code addresses}, {@code addresses[2]}). Nothing is recorded or erased. REST answers
 * 400.
 */
public class InvalidErasureException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    private final ArrayList<FieldError> errors; // a plain ArrayList marshals over IIOP

    /** @param errors the broken rules, at least one */
    public InvalidErasureException(List<FieldError> errors) {
        super("Invalid erasure: " + errors.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
        this.errors = new ArrayList<>(errors);
    }

    /** @return the broken rules, one per field */
    public List<FieldError> getErrors() {
        return Collections.unmodifiableList(errors);
    }
}
