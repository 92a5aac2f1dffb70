package dev.mailqueue.api;

import java.io.Serializable;

/**
 * One broken rule of a request: the field as the JSON names it ({@code to[1]}, {@code subject}) and
 * what is wrong with it.
 */
public class FieldError implements Serializable {

    private static final long serialVersionUID = 1L;

    private String field;
    private String message;

    /** For JSON-B. */
    public FieldError() {
    }

    /**
     * @param field   the property path, e.g. {@code cc[0]}
     * @param message what is wrong, e.g. {@code must not contain CR or LF}
     */
    public FieldError(String field, String message) {
        this.field = field;
        this.message = message;
    }

    public String getField() {
        return field;
    }

    public void setField(String field) {
        this.field = field;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    @Override
    public String toString() {
        return field + ": " + message;
    }
}
