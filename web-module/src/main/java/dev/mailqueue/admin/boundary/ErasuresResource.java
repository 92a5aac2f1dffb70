package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.ErasureView;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidErasureException;
import dev.mailqueue.erasure.boundary.Erasures;
import dev.mailqueue.http.boundary.JsonBodyReader;
import dev.mailqueue.http.boundary.ProblemException;
import dev.mailqueue.http.control.JsonFields;
import dev.mailqueue.http.control.Problem;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /api/admin/erasures}: erasure of people's data (GDPR art. 17). {@code POST {"addresses": [...]}} records an
 * erasure and starts its job: 202 with the erasure and its {@code Location}; 400 {@code invalid-erasure} naming each
 * field at fault; 409 {@code erasure-not-set-up} when {@code mailqueue.erasure.secret} is not set. {@code GET} lists
 * the latest erasures, {@code GET /{id}} shows one (404 when there is none), {@code POST /{id}/resume} starts the job
 * of an erasure that did not complete again. An erasure as JSON is its receipt: counts per kind of row removed, never
 * an address. Role {@code mail-admin}; the GETs also {@code mail-viewer}.
 */
@Path("admin/erasures")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "erasures", description = "Erasing a person's data (role mail-admin; reading also mail-viewer)")
public class ErasuresResource {

    @EJB
    Erasures erasures;

    @Context
    UriInfo uri;

    /**
     * @param body {@code {"addresses": ["a@example.com", ...]}}, 1 to {@value ErasureView#MAX_ADDRESSES}
     * @return 202 with the erasure
     * @throws IOException             when the body cannot be read
     * @throws InvalidErasureException naming each address that is not one (400)
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Erase people's data", description = "Deletes every mail that names one of the addresses"
            + " as sender, Reply-To or recipient (queued mail too, which is never sent), with its recipients,"
            + " headers, attachments, raw bytes, log, events, webhook deliveries and bounce reports; the events of no"
            + " mail and the suppression entries that name them. Each address stays suppressed for all mail under a"
            + " keyed hash, from this request on. Runs as the batch job mail-erasure; the answer is its receipt.")
    public Response request(InputStream body) throws IOException, InvalidErasureException {
        JsonValue json = JsonBodyReader.json(body);
        List<FieldError> errors = new ArrayList<>();
        List<String> addresses = null;
        if (json instanceof JsonObject object) {
            JsonFields fields = new JsonFields(object, "", errors);
            addresses = fields.strings("addresses");
            fields.refuseUnread("an erasure");
        } else {
            errors.add(new FieldError("", "must be a JSON object with the member addresses"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidErasureException(errors);
        }
        if (!erasures.enabled()) {
            throw new ProblemException(new Problem("urn:mailqueue:problem:erasure-not-set-up", "Erasure not set up",
                    409, "This server cannot erase: set " + ErasureView.SECRET_SETTING + " (at least "
                    + ErasureView.MIN_SECRET_CHARS + " characters, the same on every server). Nothing was done.",
                    List.of()));
        }
        ErasureView erasure = erasures.request(addresses);
        return Response.accepted(json(erasure))
                .location(uri.getAbsolutePathBuilder().path(Long.toString(erasure.id())).build()).build();
    }

    /** @return the latest erasures, newest first */
    @GET
    @Operation(summary = "The latest 100 erasures, newest first")
    public JsonValue list() {
        JsonArrayBuilder all = Json.createArrayBuilder();
        erasures.list().forEach(e -> all.add(json(e)));
        return all.build();
    }

    /** @return the erasure @throws NotFoundException when there is none (404) */
    @GET
    @Path("{id: [0-9]{1,18}}")
    @Operation(summary = "One erasure's receipt and its job's status")
    public JsonObject erasure(@PathParam("id") long id) {
        return json(erasures.find(id).orElseThrow(() -> new NotFoundException("no erasure " + id)));
    }

    /** @return the erasure, its job started again unless it completed or runs @throws NotFoundException (404) */
    @POST
    @Path("{id: [0-9]{1,18}}/resume")
    @Operation(summary = "Start an erasure's job again", description = "For an erasure that did not complete: its job"
            + " failed, or the server restarted while it ran. Harmless for one that completed or runs.")
    public JsonObject resume(@PathParam("id") long id) {
        if (erasures.find(id).isEmpty()) {
            throw new NotFoundException("no erasure " + id);
        }
        return json(erasures.resume(id));
    }

    private static JsonObject json(ErasureView e) {
        JsonObjectBuilder counts = Json.createObjectBuilder();
        e.countsView().forEach(counts::add);
        JsonObjectBuilder o = Json.createObjectBuilder().add("id", e.id())
                .add("requestedAt", e.requestedAt().toString()).add("requestedBy", e.requestedBy())
                .add("addresses", e.addresses()).add("upToMailId", e.upToMailId()).add("jobStatus", e.jobStatus());
        if (e.jobExecutionId() != null) {
            o.add("jobExecutionId", e.jobExecutionId());
        }
        Instant completed = e.completedAt();
        o.add("completedAt", completed == null ? JsonValue.NULL : Json.createValue(completed.toString()));
        return o.add("counts", counts).build();
    }
}
