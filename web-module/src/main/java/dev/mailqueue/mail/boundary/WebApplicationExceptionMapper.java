package dev.mailqueue.mail.boundary;

import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.List;

/**
 * The JAX-RS runtime's own client errors (unknown path 404, wrong method 405, wrong media type 415,
 * unreadable body 400) as problem details too, so every error of the API has one shape.
 */
@Provider
public class WebApplicationExceptionMapper implements ExceptionMapper<WebApplicationException> {

    @Override
    public Response toResponse(WebApplicationException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof JsonbException) {
                return UnreadableRequestMapper.MalformedJson.problem(t).toResponse();
            }
        }
        Response.StatusType status = e.getResponse().getStatusInfo();
        if (status.getFamily() == Response.Status.Family.SERVER_ERROR) {
            return e.getResponse();
        }
        return new Problem("about:blank", status.getReasonPhrase(), status.getStatusCode(), e.getMessage(), List.of())
                .toResponse();
    }
}
