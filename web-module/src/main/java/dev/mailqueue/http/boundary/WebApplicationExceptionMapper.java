package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.Problem;
import dev.mailqueue.http.control.StatusTexts;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.List;

/**
 * The JAX-RS runtime's own client errors (unknown path 404, wrong method 405, no acceptable media type
 * 406, wrong media type 415, a header it cannot parse 400) as problem details too, so every error of
 * the API has one shape. The detail is a fixed sentence per status ({@link StatusTexts}), never the
 * runtime's message, which names classes and echoes the request. A refusal that already carries
 * problem details (an entity) is answered as it is.
 */
@Provider
public class WebApplicationExceptionMapper implements ExceptionMapper<WebApplicationException> {

    @Override
    public Response toResponse(WebApplicationException e) {
        Response response = e.getResponse();
        if (response.hasEntity() && response.getEntity() instanceof Problem) {
            return response;
        }
        int status = response.getStatus();
        if (status < 400) {
            status = 500;
        }
        if (status >= 500) {
            return new UnexpectedErrorMapper().toResponse(e);
        }
        Response.ResponseBuilder answer = Response.status(status);
        String allow = response.getHeaderString("Allow");
        if (allow != null) {
            answer.header("Allow", allow); // RFC 9110 15.5.6: a 405 names the methods that are allowed
        }
        return answer.type(Problem.MEDIA_TYPE).entity(new Problem("about:blank", StatusTexts.title(status), status,
                StatusTexts.detail(status), List.of())).build();
    }
}
