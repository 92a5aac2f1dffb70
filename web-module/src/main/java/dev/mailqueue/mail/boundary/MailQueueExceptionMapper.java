package dev.mailqueue.mail.boundary;

import dev.mailqueue.http.control.Problem;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.IdempotencyKeyReusedException;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailQueueException;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.SenderNotAllowedException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.List;

/**
 * Turns the queue's business exceptions into problem details: invalid mail or filter 400 (with the
 * fields), a From address the caller may not use 403 (naming the field), unknown mail 404, forbidden
 * state change 409, an invalid template 400, an unknown template 404, an idempotency key reused with a different
 * request 422, a search stopped at its timeout 422 (naming the criteria no index serves).
 */
@Provider
public class MailQueueExceptionMapper implements ExceptionMapper<MailQueueException> {

    @Override
    public Response toResponse(MailQueueException e) {
        if (e instanceof InvalidMailException invalid) {
            return new Problem("urn:mailqueue:problem:invalid-mail", "Invalid mail", 400,
                    "The mail was not queued: " + invalid.getErrors().size() + " field(s) at fault.",
                    invalid.getErrors()).toResponse();
        }
        if (e instanceof SenderNotAllowedException refused) {
            return new Problem("urn:mailqueue:problem:sender-not-allowed", "Sender not allowed", 403,
                    "The mail was not queued: you may not send it as given (" + refused.getErrors().size()
                            + " field(s) at fault).", refused.getErrors())
                    .toResponse();
        }
        if (e instanceof dev.mailqueue.api.InvalidTemplateException invalid) {
            return new Problem("urn:mailqueue:problem:invalid-template", "Invalid template", 400,
                    "Nothing was stored or rendered: " + invalid.getErrors().size() + " field(s) at fault.",
                    invalid.getErrors()).toResponse();
        }
        if (e instanceof dev.mailqueue.api.TemplateNotFoundException) {
            return new Problem("urn:mailqueue:problem:not-found", "No such template", 404, e.getMessage(), List.of())
                    .toResponse();
        }
        if (e instanceof dev.mailqueue.api.SearchTimeoutException timedOut) {
            return new Problem("urn:mailqueue:problem:search-timeout", "Search stopped", 422,
                    "The search ran longer than " + timedOut.getTimeoutMillis() + " ms and was stopped: no index"
                            + " serves " + timedOut.getErrors().size() + " of its criteria. Narrow it.",
                    timedOut.getErrors()).toResponse();
        }
        if (e instanceof dev.mailqueue.api.InvalidErasureException invalid) {
            return new Problem("urn:mailqueue:problem:invalid-erasure", "Invalid erasure", 400,
                    "Nothing was erased: " + invalid.getErrors().size() + " field(s) at fault.",
                    invalid.getErrors()).toResponse();
        }
        if (e instanceof InvalidFilterException invalid) {
            return new Problem("urn:mailqueue:problem:invalid-filter", "Invalid filter", 400,
                    "Nothing was changed: " + invalid.getErrors().size() + " parameter(s) at fault.",
                    invalid.getErrors()).toResponse();
        }
        if (e instanceof MailNotFoundException) {
            return new Problem("urn:mailqueue:problem:not-found", "No such mail", 404, e.getMessage(), List.of())
                    .toResponse();
        }
        if (e instanceof IdempotencyKeyReusedException) {
            return new Problem("urn:mailqueue:problem:idempotency-key-reused", "Idempotency key reused", 422,
                    e.getMessage(), List.of(new FieldError("Idempotency-Key",
                    "was first used with a different request"))).toResponse();
        }
        if (e instanceof MailStateException) {
            return new Problem("urn:mailqueue:problem:wrong-state", "Not allowed in this state", 409,
                    e.getMessage(), List.of()).toResponse();
        }
        return new Problem("urn:mailqueue:problem:rejected", "Request rejected", 400, e.getMessage(), List.of())
                .toResponse();
    }
}
