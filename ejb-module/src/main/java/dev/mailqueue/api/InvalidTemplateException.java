package dev.mailqueue.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when a template to store breaks a rule (its name, a locale's tag, a part that does not parse or is too
 * long) or a preview cannot be rendered; names every field at fault. Nothing is stored.
 */
public class InvalidTemplateException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    private final ArrayList<FieldError> errors; // a plain ArrayList marshals over IIOP

    /** @param errors the broken rules, at least one */
    public InvalidTemplateException(List<FieldError> errors) {
        super("Invalid template: " + errors.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
        this.errors = new ArrayList<>(errors);
    }

    /** @return the broken rules, one per field and rule */
    public List<FieldError> getErrors() {
        return Collections.unmodifiableList(errors);
    }
}
