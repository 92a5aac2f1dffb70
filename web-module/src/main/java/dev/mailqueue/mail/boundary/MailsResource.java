package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.RawMail;
import dev.mailqueue.http.boundary.JsonBodyReader;
import dev.mailqueue.http.control.RawMailQuery;
import dev.mailqueue.http.control.RequestBodyException;
import dev.mailqueue.api.IdempotencyConflictException;
import dev.mailqueue.api.IdempotencyKeyReusedException;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.SenderNotAllowedException;
import dev.mailqueue.log.control.LogText;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * {@code /api/mails}: enqueue a mail (or up to 10,000 at {@code /api/mails/batch}), read its delivery
 * state, cancel it. Errors answer with
 * {@code application/problem+json} (RFC 9457): 400 for a bad request (naming each field; the body is read
 * strictly by {@code dev.mailqueue.http.boundary.JsonBodyReader}), 403 for a From address or SMTP account
 * the caller may not use, 404 for an unknown id (or another sender's mail), 409 for an action the mail's
 * status forbids, 413 for a body over the limit and 415 for one that is not JSON
 * ({@code dev.mailqueue.http.boundary.RequestGuard}). Needs role {@code mail-sender} or
 * {@code mail-admin} (web.xml).
 */
@Path("mails")
@RequestScoped
@Tag(name = "mails", description = "Enqueue mail and follow it (role mail-sender or mail-admin)")
@Produces(MediaType.APPLICATION_JSON)
public class MailsResource {

    private static final Logger LOG = Logger.getLogger(MailsResource.class.getName());

    @EJB
    MailQueueLocal mails;

    /**
     * Queues a mail and returns at once. With an {@code Idempotency-Key} header (the IETF draft
     * draft-ietf-httpapi-idempotency-key-header; 1 to 255 printable ASCII characters, e.g. a UUID) a
     * repeat of the request queues nothing and answers 200 with the mail the first one queued, also
     * when the two race.
     *
     * @param request        the mail as JSON (from, fromName, replyTo, to, cc, bcc, subject, text, html,
     *                       priority 0..9, notBefore and expiresAt as ISO-8601 instants, perRecipient,
     *                       attachments as {@code [{filename, contentType, content (base64)}]}, headers as
     *                       {@code {name: value}})
     * @param idempotencyKey the caller's key for this mail, or null
     * @return 202 Accepted, {@code Location: /api/mails/{id}}, body {@code {id, messageId, status,
     *         duplicate, copies}}; 200 OK with the same for a repeat of an idempotency key; 422 when the
     *         key was first used with a different request
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Enqueue a mail", description = "Answers 202 at once; the queue sends the mail later."
            + " With an Idempotency-Key header a repeat answers 200 with the first mail."
            + " 400 names each field at fault, 403 when the caller may not send as the From address.")
    public Response enqueue(MailRequest request, @HeaderParam("Idempotency-Key") String idempotencyKey,
                            @Context UriInfo uri)
            throws InvalidMailException, SenderNotAllowedException, IdempotencyKeyReusedException {
        EnqueueReceipt receipt;
        try {
            receipt = mails.enqueue(request, idempotencyKey);
        } catch (IdempotencyConflictException raced) {
            LOG.info(() -> "Idempotency key " + LogText.escape(idempotencyKey)
                    + ": a concurrent duplicate committed first; answering with its mail");
            try {
                receipt = mails.enqueue(request, idempotencyKey); // the winner has committed: its mail
            } catch (IdempotencyConflictException again) {
                throw new IllegalStateException("idempotency key conflicted twice", again);
            }
        }
        return Response.status(receipt.isDuplicate() ? Response.Status.OK : Response.Status.ACCEPTED)
                .entity(receipt)
                .location(uri.getAbsolutePathBuilder().path(Long.toString(receipt.getId())).build())
                .build();
    }

    /**
     * Queues a finished RFC 5322 message (raw MIME) and returns at once, as {@link #enqueue} does a composed
     * mail, with the same answers, idempotency and limits. The message is sent byte for byte but for what the queue
     * must change ({@link dev.mailqueue.api.RawMail}).
     *
     * @param body           the message ({@code Content-Type: message/rfc822}), at most
     *                       {@code mailqueue.http.max-request-bytes} bytes
     * @param idempotencyKey the caller's key for this mail, or null
     * @param uri            the query: {@code from}, {@code to} (repeated), {@code priority}, {@code notBefore},
     *                       {@code expiresAt}, {@code account}, {@code campaign}, {@code reference}, {@code tag}
     *                       (repeated), {@code unsubscribeList} ({@link RawMailQuery})
     * @return 202 Accepted (200 for a repeated key) with {@code {id, messageId, status}} and its Location; 400
     *         naming {@code message}, a header field ({@code message.From}) or a parameter; 403 for a sender the
     *         caller may not use; 413 for a message over the limit
     * @throws IOException when the connection fails while the body is read
     */
    @POST
    @Consumes("message/rfc822")
    @Operation(summary = "Enqueue a finished RFC 5322 message (raw MIME)", description = "The body is the message;"
            + " the envelope comes from the query (from, to repeated) or from its From/Sender and To/Cc/Bcc fields."
            + " The queue removes Bcc and adds Message-ID and Date where missing; nothing else changes.")
    public Response enqueueRaw(InputStream body, @HeaderParam("Idempotency-Key") String idempotencyKey,
                               @Context UriInfo uri, @Context SecurityContext security)
            throws IOException, InvalidMailException, SenderNotAllowedException, IdempotencyKeyReusedException {
        byte[] message;
        try {
            message = body.readAllBytes();
        } catch (RequestBodyException e) {
            throw JsonBodyReader.unreadable(e);
        }
        List<FieldError> errors = new ArrayList<>();
        RawMail mail = RawMailQuery.bind(message, uri.getQueryParameters(), errors);
        if (!errors.isEmpty()) {
            throw new InvalidMailException(errors);
        }
        EnqueueReceipt receipt;
        try {
            try {
                receipt = mails.enqueueRaw(mail, idempotencyKey);
            } catch (IdempotencyConflictException raced) {
                receipt = mails.enqueueRaw(mail, idempotencyKey); // the winner has committed: its mail
            }
        } catch (IdempotencyConflictException again) {
            throw new IllegalStateException("idempotency key conflicted twice", again);
        } catch (InvalidMailException e) {
            throw new InvalidMailException(parameters(e.getErrors()));
        } catch (SenderNotAllowedException e) {
            throw new SenderNotAllowedException(security.getUserPrincipal().getName(), parameters(e.getErrors()));
        }
        return Response.status(receipt.isDuplicate() ? Response.Status.OK : Response.Status.ACCEPTED)
                .entity(receipt)
                .location(uri.getAbsolutePathBuilder().path(Long.toString(receipt.getId())).build())
                .build();
    }

    /** @return the errors with the envelope's fields named as the query names them */
    private static List<FieldError> parameters(List<FieldError> errors) {
        return errors.stream().map(e -> new FieldError(RawMailQuery.parameter(e.getField()), e.getMessage())).toList();
    }

    /**
     * Queues up to 10,000 mails at once, all or nothing.
     *
     * @param requests a JSON array of mails, each as for {@code POST /api/mails}
     * @return 202 Accepted with the receipts, in the order given; 400 naming {@code [index].field}
     *         when any mail is refused, and then none is queued
     */
    @POST
    @Path("batch")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Enqueue up to 10,000 mails, all or nothing")
    public Response enqueueAll(List<MailRequest> requests) throws InvalidMailException, SenderNotAllowedException {
        return Response.accepted(mails.enqueueAll(requests)).build();
    }

    /**
     * @param id the mail's id
     * @return status, attempts remaining, attempt log, last error and sent-at of the mail
     */
    @GET
    @Path("{id: [0-9]+}")
    @Operation(summary = "A mail's status and attempt log", description = "A sender sees only its own mails.")
    public MailView find(@PathParam("id") long id) throws MailNotFoundException {
        return mails.find(id);
    }

    /**
     * @param id the mail's id
     * @return its delivery events, oldest first, each as a webhook's {@code data} carries it
     * @throws MailNotFoundException when there is no such mail or the caller may not see it (404)
     */
    @GET
    @Path("{id: [0-9]+}/events")
    @Operation(summary = "A mail's delivery events", description = "Oldest first, as webhooks carry them (sent,"
            + " deferred, refused, bounced, delayed, complained, failed, expired, held, cancelled, suppressed)."
            + " A sender sees only its own mails.")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "200", description = "the events",
            content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json",
                    schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(
                            type = org.eclipse.microprofile.openapi.annotations.enums.SchemaType.ARRAY,
                            implementation = Object.class)))
    public jakarta.json.JsonArray events(@PathParam("id") long id) throws MailNotFoundException {
        jakarta.json.JsonArrayBuilder events = jakarta.json.Json.createArrayBuilder();
        mails.events(id).forEach(e -> events.add(dev.mailqueue.webhook.control.EventJson.of(e)));
        return events.build();
    }

    /**
     * Cancels a mail that is still QUEUED.
     *
     * @param id the mail's id
     * @return the mail, now CANCELLED
     */
    @DELETE
    @Path("{id: [0-9]+}")
    @Operation(summary = "Cancel a mail that is still QUEUED")
    public MailView cancel(@PathParam("id") long id) throws MailNotFoundException, MailStateException {
        return mails.cancel(id);
    }
}
