package dev.mailqueue.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when the caller may not send from the mail's From address: every sender has an allow-list of
 * addresses and domains ({@code mailqueue.security.allowed-from.<user>}), so the queue is no open relay.
 * Names the field ({@code from}, or {@code [3].from} in a batch). Nothing is queued. REST answers 403.
 */
public class SenderNotAllowedException extends MailQueueException {

    private static final long serialVersionUID = 1L;

    private final ArrayList<FieldError> errors; // a plain ArrayList marshals over IIOP

    /**
     * @param caller the authenticated user
     * @param errors the From fields the caller may not use, at least one
     */
    public SenderNotAllowedException(String caller, List<FieldError> errors) {
        super("User " + caller + " may not send as: "
                + errors.stream().map(FieldError::toString).collect(Collectors.joining("; ")));
        this.errors = new ArrayList<>(errors);
    }

    /** @return one entry per refused From field */
    public List<FieldError> getErrors() {
        return Collections.unmodifiableList(errors);
    }
}
