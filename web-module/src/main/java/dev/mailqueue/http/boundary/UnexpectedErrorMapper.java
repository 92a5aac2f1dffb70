package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.Problem;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.queue.control.StoreException;
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
 *
 * <p>A failure because the database cannot be reached ({@link StoreException#isConnectionFailure}: a
 * restart, a failover to a standby, a network cut) is 503 with {@code Retry-After} instead (RFC 9110
 * §15.6.4: a temporary condition), so that a client tries again; the request may or may not have been
 * done (a commit cut off before its answer), so a retried enqueue should carry the same
 * {@code Idempotency-Key}.
 */
@Provider
public class UnexpectedErrorMapper implements ExceptionMapper<Exception> {

    private static final Logger LOG = Logger.getLogger(UnexpectedErrorMapper.class.getName());

    /** Seconds a client is asked to wait after a 503 for a database it could not reach: a failover takes a few. */
    static final int RETRY_AFTER_SECONDS = 5;

    @Override
    public Response toResponse(Exception e) {
        String incident = UUID.randomUUID().toString();
        if (StoreException.isConnectionFailure(e)) {
            LOG.log(Level.WARNING, "answered 503, the database could not be reached: incident " + incident, LogText.safe(e));
            return Response.fromResponse(new Problem("urn:mailqueue:problem:database-unavailable", "Service Unavailable", 503,
                    "The queue's database could not be reached, so the request may or may not have been done; the log"
                            + " has incident " + incident + ". Send it again after Retry-After seconds (an enqueue with the"
                            + " same Idempotency-Key is done once).", List.of()).toResponse())
                    .header("Retry-After", RETRY_AFTER_SECONDS).build();
        }
        LOG.log(Level.SEVERE, "incident " + incident, LogText.safe(e)); // messages may quote the request
        return new Problem("urn:mailqueue:problem:internal", "Internal error", 500,
                "The request failed on the server; the log has incident " + incident + ".", List.of())
                .toResponse();
    }
}
