package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.Problem;
import dev.mailqueue.api.FieldError;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.List;

/**
 * A body JSON-B could not bind: 400 problem details, nothing queued. The API's own bodies are read by
 * the strict reader ({@code dev.mailqueue.http.boundary.JsonBodyReader}), which names the fields; this
 * covers anything else, with a fixed sentence rather than the binder's message, which names Java
 * classes and echoes the request.
 */
@Provider
public class UnreadableRequestMapper implements ExceptionMapper<JsonbException> {

    @Override
    public Response toResponse(JsonbException e) {
        return new Problem("urn:mailqueue:problem:malformed-json", "Malformed request body", 400,
                "The body is not valid JSON of the expected shape; nothing was done.",
                List.of(new FieldError("", "is not valid JSON of the expected shape"))).toResponse();
    }
}
