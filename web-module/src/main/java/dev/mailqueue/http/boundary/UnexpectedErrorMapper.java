package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.Problem;
import dev.mailqueue.log.control.LogText;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Any other failure: 500 problem details with an incident id that is also in the server log, and
 * none of the exception's text, which may hold SQL or internal names. The log gets the exception with
 * its messages escaped ({@link LogText#safe}), since they may quote the request.
 */
@Provider
public class UnexpectedErrorMapper implements ExceptionMapper<Exception> {

    private static final Logger LOG = Logger.getLogger(UnexpectedErrorMapper.class.getName());

    @Override
    public Response toResponse(Exception e) {
        String incident = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, "incident " + incident, LogText.safe(e)); // messages may quote the request
        return new Problem("urn:mailqueue:problem:internal", "Internal error", 500,
                "The request failed on the server; the log has incident " + incident + ".", List.of())
                .toResponse();
    }
}
