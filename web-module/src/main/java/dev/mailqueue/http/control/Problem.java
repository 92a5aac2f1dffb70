package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;

/**
 * An RFC 9457 problem details body ({@code application/problem+json}), with the extension member
 * {@code errors} listing the fields at fault.
 *
 * @param type   a URI naming the kind of problem
 * @param title  a short summary of the kind
 * @param status the HTTP status, 400..599
 * @param detail what went wrong this time
 * @param errors the fields at fault; empty when the problem is not about fields
 */
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {

    /** The media type of problem details, RFC 9457 §3. */
    public static final MediaType MEDIA_TYPE = new MediaType("application", "problem+json");

    /** @return an HTTP response carrying this problem with its status and media type */
    public Response toResponse() {
        return Response.status(status).type(MEDIA_TYPE).entity(this).build();
    }
}
