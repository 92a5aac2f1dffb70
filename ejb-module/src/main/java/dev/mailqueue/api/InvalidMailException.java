package dev.mailqueue.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/** Thrown when a mail request breaks a rule; names every field at fault. Nothing is queued. */
public class InvalidMailException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    private final ArrayList<FieldError> errors; // a plain ArrayList marshals over IIOP

    /** @param errors the broken rules, at least one */
    public InvalidMailException(List<FieldError> errors) {
        super("Invalid mail: " + errors.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
        this.errors = new ArrayList<>(errors);
    }

    /** @return the broken rules, one per field and rule */
    public List<FieldError> getErrors() {
        return Collections.unmodifiableList(errors);
    }
}
