package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.DkimKeyView;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailDetail;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailPage;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.QueueStatistics;
import dev.mailqueue.api.SuppressionView;
import dev.mailqueue.http.control.Downloads;
import dev.mailqueue.http.control.Problem;
import dev.mailqueue.api.SeriesBucket;
import dev.mailqueue.webhook.control.EventJson;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code /api/admin}: the operator's API, role {@code mail-admin}; its GETs also {@code mail-viewer}
 * (web.xml and the EJB). Search mails by filter with paging and sorting; requeue, cancel or delete one
 * mail or every mail a filter matches (bulk actions answer how many rows they changed); read one mail in
 * full, its attempt log and events, download its attachments; read the queue's statistics and chart data. Errors are problem details: 400 for a bad filter, 404 for an unknown mail, 409
 * for an action the mail's status forbids.
 */
@Path("admin")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "admin", description = "Operating the queue (role mail-admin; reading also mail-viewer)")
public class AdminResource {

    @EJB
    MailAdminLocal admin;

    /**
     * @return one page of the mails the query's filter matches (see {@link FilterParameters})
     * @throws InvalidFilterException naming each parameter that does not parse or is out of range
     *                                ({@code page}, {@code size}, {@code sort}, a criterion): 400
     */
    @GET
    @Path("mails")
    @Operation(summary = "Search mails", description = "Filter parameters: id, status (repeatable or comma separated),"
            + " recipient, sender, enqueuedBy (exact), campaign, tag, reference (exact), createdFrom, createdTo"
            + " (ISO-8601), errorText, subject (each word, any case), account (exact), bounced (true: an attempt"
            + " got a 5yz reply). Mails come without their attempt logs.")
    public MailPage search(@Context UriInfo uri,
                           @QueryParam("page") @Parameter(description = "from 0; default 0", schema = @Schema(
                                   type = SchemaType.INTEGER, minimum = "0")) String page,
                           @QueryParam("size") @Parameter(description = "1 to 500; default 50", schema = @Schema(
                                   type = SchemaType.INTEGER, minimum = "1", maximum = "500")) String size,
                           @QueryParam("sort") @Parameter(description = "id, createdAt, status, priority, notBefore,"
                                   + " sentAt or lastAttemptAt, then ,asc or ,desc; default id,desc") String sort)
            throws InvalidFilterException {
        // page and size are read here, not as int parameters: JAX-RS answers 404 for a query parameter
        // that does not convert, and the caller should learn which parameter is wrong (400).
        List<FieldError> errors = new ArrayList<>();
        MultivaluedMap<String, String> query = uri.getQueryParameters();
        int pageNumber = FilterParameters.whole(query, "page", 0, errors);
        int pageSize = FilterParameters.whole(query, "size", 50, errors);
        MailFilter filter;
        try {
            filter = FilterParameters.parse(query);
        } catch (InvalidFilterException e) {
            errors.addAll(e.getErrors());
            filter = null;
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
        return admin.search(filter, pageNumber, pageSize, sort);
    }

    /**
     * @return the mail as the console shows it: the full view, the From name, Reply-To, both bodies, its
     *         list, when it was first attempted, and every recipient with its outcome
     * @throws MailNotFoundException when there is no such mail (404)
     */
    @GET
    @Path("mails/{id: [0-9]+}")
    @Operation(summary = "One mail with its bodies", description = "As GET /api/mails/{id}, and fromName, replyTo,"
            + " text, html, unsubscribeList, firstAttemptAt, and recipientOutcomes: every To, Cc and Bcc recipient"
            + " with its own status (perRecipient) or the mail's (PENDING while it waits).")
    public MailDetail detail(@PathParam("id") long id) throws MailNotFoundException {
        return admin.detail(id);
    }

    /**
     * @return the attachment's bytes, as a download
     * @throws MailNotFoundException when there is no such mail (404)
     * @throws NotFoundException     when the mail has no attachment at that index (404)
     */
    @GET
    @Path("mails/{id: [0-9]+}/attachments/{index: [0-9]{1,9}}")
    @Produces(MediaType.WILDCARD)
    @Operation(summary = "Download one attachment", description = "By its position among the mail's attachments,"
            + " from 0; with its stored Content-Type and Content-Disposition: attachment.")
    public Response attachment(@PathParam("id") long id, @PathParam("index") int index) throws MailNotFoundException {
        MailAdminLocal.AttachmentFile file = admin.attachment(id, index).orElseThrow(() -> new NotFoundException(
                new Problem("urn:mailqueue:problem:not-found", "No such attachment", 404,
                        "Mail " + id + " has no attachment " + index + " (they are counted from 0).", List.of())
                        .toResponse()));
        return Response.ok(file.content(), Downloads.contentType(file.contentType()))
                .header("Content-Disposition", Downloads.contentDisposition(file.filename()))
                .header("X-Content-Type-Options", "nosniff")
                .header("Content-Length", file.content().length)
                .build();
    }

    /**
     * @return the mail's delivery events, oldest first, as {@code GET /api/mails/{id}/events} shows them
     * @throws MailNotFoundException when there is no such mail (404)
     */
    @GET
    @Path("mails/{id: [0-9]+}/events")
    @Operation(summary = "A mail's delivery events, oldest first", description = "As GET /api/mails/{id}/events.")
    @APIResponse(responseCode = "200", description = "the events", content = @Content(mediaType = "application/json",
            schema = @Schema(type = SchemaType.ARRAY, implementation = Object.class)))
    public JsonArray events(@PathParam("id") long id) throws MailNotFoundException {
        JsonArrayBuilder events = Json.createArrayBuilder();
        admin.events(id).forEach(e -> events.add(EventJson.of(e)));
        return events.build();
    }

    @GET
    @Path("mails/{id: [0-9]+}/attempts")
    @Operation(summary = "The attempt log of one mail, oldest first")
    public List<AttemptView> attempts(@PathParam("id") long id) throws MailNotFoundException {
        return admin.attempts(id);
    }

    @POST
    @Path("mails/{id: [0-9]+}/requeue")
    @Operation(summary = "Requeue one FAILED, EXPIRED, HELD or CANCELLED mail",
            description = "QUEUED again, due now, with the configured number of attempts.")
    public MailView requeue(@PathParam("id") long id) throws MailNotFoundException, MailStateException {
        return admin.requeue(id);
    }

    @POST
    @Path("mails/{id: [0-9]+}/cancel")
    @Operation(summary = "Cancel one QUEUED or HELD mail")
    public MailView cancel(@PathParam("id") long id) throws MailNotFoundException, MailStateException {
        return admin.cancel(id);
    }

    @DELETE
    @Path("mails/{id: [0-9]+}")
    @Operation(summary = "Delete one mail and its attempt log (not while it is SENDING)")
    public void delete(@PathParam("id") long id) throws MailNotFoundException, MailStateException {
        admin.delete(id);
    }

    @POST
    @Path("mails/requeue")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Requeue every FAILED, EXPIRED, HELD or CANCELLED mail the filter matches",
            description = "Body: a filter (ids, statuses, recipient, sender, enqueuedBy, createdFrom, createdTo,"
                    + " errorText, subject, account, bounced) with at least one criterion. Answers the rows changed.")
    public Changed requeueAll(MailFilter filter) throws InvalidFilterException {
        return new Changed(admin.requeue(filter));
    }

    @POST
    @Path("mails/cancel")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Cancel every QUEUED or HELD mail the filter matches")
    public Changed cancelAll(MailFilter filter) throws InvalidFilterException {
        return new Changed(admin.cancel(filter));
    }

    @POST
    @Path("mails/delete")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Delete every mail the filter matches, except SENDING ones")
    public Changed deleteAll(MailFilter filter) throws InvalidFilterException {
        return new Changed(admin.delete(filter));
    }

    @GET
    @Path("statistics")
    @Operation(summary = "The queue's numbers", description = "Mails per status, sent and failed per hour over the"
            + " last 24 hours, age of the oldest queued mail (s), top failure reasons, per SMTP account.")
    public QueueStatistics statistics() {
        return admin.statistics();
    }

    /**
     * @return chart data: {@code {"range", "bucketSeconds", "account", "buckets": [{"start", "sent", "failed",
     *         "deferred", "queued"}]}}, oldest bucket first, the last one holding now
     * @throws InvalidFilterException naming {@code range} or {@code account} (400)
     */
    /** @return the DKIM keys with the DNS records to publish for them */
    @GET
    @Path("dkim")
    @Operation(summary = "DKIM signing keys and their DNS records", description = "Per key: its name, the From domain"
            + " whose mail it signs, its selector, the TXT record to publish at dnsName (selector._domainkey.domain),"
            + " its size in bits, or the problem that keeps its file from being read (the domain's mail then waits)."
            + " The private key is never shown.")
    public List<DkimKeyView> dkim() {
        return admin.dkimKeys();
    }

    @GET
    @Path("statistics/series")
    @Operation(summary = "Chart data per minute or hour", description = "range=hour: 60 one-minute buckets (the"
            + " default); range=week: 168 one-hour buckets; the last holds now. Per bucket: attempts that sent, failed"
            + " for good and were deferred, and the mails waiting at its end. account=<name> limits it to one SMTP"
            + " account.")
    public JsonObject series(@QueryParam("range") String range, @QueryParam("account") String account)
            throws InvalidFilterException {
        MailAdminLocal.Series series = admin.series(range, account);
        JsonArrayBuilder buckets = Json.createArrayBuilder();
        for (SeriesBucket b : series.buckets()) {
            buckets.add(Json.createObjectBuilder().add("start", b.start().toString()).add("sent", b.sent())
                    .add("failed", b.failed()).add("deferred", b.deferred()).add("queued", b.queued()));
        }
        JsonObjectBuilder answer = Json.createObjectBuilder().add("range", series.range())
                .add("bucketSeconds", series.bucketSeconds());
        if (series.account() == null) {
            answer.addNull("account");
        } else {
            answer.add("account", series.account());
        }
        return answer.add("buckets", buckets).build();
    }

    /**
     * The answer of a bulk action.
     *
     * @param changed how many mails the action changed (or deleted)
     */
    public record Changed(int changed) {
    }

    /**
     * @return one page of the suppression list, newest first
     * @throws InvalidFilterException when page or size do not parse or are out of range: 400
     */
    @GET
    @Path("suppressions")
    @Operation(summary = "List suppressed addresses", description = "Newest first. Parameters: address (part of it,"
            + " case-insensitive), page (from 0), size (1 to 500, default 50).")
    public List<SuppressionView> suppressions(@QueryParam("address") String address, @QueryParam("page") String page,
                                              @QueryParam("size") String size) throws InvalidFilterException {
        List<FieldError> errors = new ArrayList<>();
        int p = whole("page", page, 0, errors);
        int s = whole("size", size, 50, errors);
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
        return admin.suppressions(address, p, s);
    }

    /**
     * @return the entry that keeps the queue from sending to the address (for all mail, else for the list)
     * @throws NotFoundException when nothing does: the queue sends to it (404)
     */
    @GET
    @Path("suppressions/{address}")
    @Operation(summary = "May the queue send to this address?", description = "200 with the entry that forbids it"
            + " (for all mail, or for the list given as ?list=), 404 when nothing does.")
    public SuppressionView suppression(@PathParam("address") String address, @QueryParam("list") String list)
            throws InvalidFilterException {
        SuppressionView entry = admin.suppression(address, list);
        if (entry == null) {
            throw new NotFoundException(address + " is not suppressed" + (list == null ? "" : " for list " + list));
        }
        return entry;
    }

    /** @return the entry (an existing one is kept as it was) */
    @PUT
    @Path("suppressions/{address}")
    @Operation(summary = "Suppress an address by hand", description = "For all mail, or for the list given as ?list=;"
            + " ?note= says why. An address already suppressed keeps its entry.")
    public SuppressionView suppress(@PathParam("address") String address, @QueryParam("list") String list,
                                    @QueryParam("note") String note) throws InvalidFilterException {
        return admin.suppress(address, list, note);
    }

    /** Lifts a suppression. @throws NotFoundException when there was none (404) */
    @DELETE
    @Path("suppressions/{address}")
    @Operation(summary = "Lift a suppression", description = "The entry for all mail, or for the list given as ?list=.")
    public void unsuppress(@PathParam("address") String address, @QueryParam("list") String list)
            throws InvalidFilterException {
        if (!admin.unsuppress(address, list)) {
            throw new NotFoundException(address + " is not suppressed" + (list == null ? "" : " for list " + list));
        }
    }

    private static int whole(String name, String value, int absent, List<FieldError> errors) {
        if (value == null) {
            return absent;
        }
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            errors.add(new FieldError(name, "must be a whole number, was '" + value + "'"));
            return absent;
        }
    }
}
