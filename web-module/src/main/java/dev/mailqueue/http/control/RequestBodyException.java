package dev.mailqueue.http.control;

import java.io.IOException;

/**
 * Reading a request body stopped because the body broke a rule of the HTTP edge: longer than the
 * limit (413, RFC 9110 §15.5.14) or shorter than its {@code Content-Length} (400, RFC 9112 §6.3:
 * an incomplete message). An {@link IOException}, so it leaves any reader the way a broken
 * connection does; the reader of the JSON body turns it into problem details.
 */
public class RequestBodyException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int status;

    /**
     * @param status  the HTTP status to answer, 400 or 413
     * @param message what is wrong, for the caller: no request content in it
     */
    public RequestBodyException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** @return the HTTP status to answer: 413 for a body over the limit, 400 for a truncated one */
    public int status() {
        return status;
    }
}
