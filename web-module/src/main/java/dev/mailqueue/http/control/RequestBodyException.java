package dev.mailqueue.http.control;

import java.io.IOException;

/**
 * Reading a request body stopped because the body broke a rule of the HTTP edge: longer than the
 * limit (413, RFC 9110 §15.5.14), shorter than its {@code Content-Length} (400, RFC 9112 §6.3: an
 * incomplete message), or a chunked body against RFC 9112 §7.1's grammar (400). An {@link IOException},
 * so it leaves any reader the way a broken connection does; the reader of the JSON body turns it into
 * problem details that name {@link #field()}.
 */
public class RequestBodyException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String field;

    /**
     * @param status  the HTTP status to answer, 400 or 413
     * @param field   the header whose promise the body broke ({@code Content-Length},
     *                {@code Transfer-Encoding}), or empty for the body as a whole
     * @param message what is wrong, for the caller: no request content in it
     */
    public RequestBodyException(int status, String field, String message) {
        super(message);
        this.status = status;
        this.field = field;
    }

    /** @return the header at fault ({@code Content-Length}, {@code Transfer-Encoding}), or empty for the body */
    public String field() {
        return field;
    }

    /** @return the HTTP status to answer: 413 for a body over the limit, 400 for a truncated or malformed one */
    public int status() {
        return status;
    }
}
