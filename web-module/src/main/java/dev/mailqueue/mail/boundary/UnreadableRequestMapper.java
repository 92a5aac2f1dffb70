package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.FieldError;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.List;

/** A body that is not JSON, or JSON of the wrong shape: 400 problem details, nothing queued. */
@Provider
public class UnreadableRequestMapper implements ExceptionMapper<JsonbException> {

    @Override
    public Response toResponse(JsonbException e) {
        return MalformedJson.problem(e).toResponse();
    }

    /** The problem for an unreadable body, shared with {@link WebApplicationExceptionMapper}. */
    static final class MalformedJson {

        private MalformedJson() {
        }

        static Problem problem(Throwable e) {
            String reason = e.getMessage() == null ? "not valid JSON" : e.getMessage();
            return new Problem("urn:mailqueue:problem:malformed-json", "Malformed request body", 400,
                    "The body is not a valid JSON mail: " + reason,
                    List.of(new FieldError("", reason)));
        }
    }
}
