package dev.mailqueue.webhook.boundary;

import dev.mailqueue.api.EventType;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.WebhookDelivery;
import dev.mailqueue.api.WebhookEndpointView;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Instant;
import java.util.List;

/**
 * {@code /api/admin/webhooks}: the configured endpoints with their health and cursor, each one's parked
 * deliveries (failed, waiting behind a failure, or given up; a delivered event leaves none), the redelivery
 * of one event and enabling a disabled endpoint. Role {@code mail-admin} (web.xml and the EJB).
 * Endpoints themselves are server configuration ({@code mailqueue.webhooks}); secrets are never shown.
 */
@Path("admin/webhooks")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "webhooks", description = "Delivery events pushed to webhook endpoints (role mail-admin)")
public class WebhooksResource {

    @EJB
    Webhooks webhooks;

    /**
     * @return every endpoint: name, url, events, campaigns, disabled, failingSince, lastSuccessAt, pending, failed,
     *         cursorPosition and cursorMovedAt (where it stands in the log, once it had a round)
     */
    @GET
    @Operation(summary = "Webhook endpoints and their health")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "200", description = "the endpoints",
            content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json",
                    schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(
                            type = org.eclipse.microprofile.openapi.annotations.enums.SchemaType.ARRAY,
                            implementation = Object.class)))
    public JsonArray endpoints() {
        JsonArrayBuilder all = Json.createArrayBuilder();
        webhooks.endpoints().forEach(v -> all.add(json(v)));
        return all.build();
    }

    /** @return one endpoint @throws NotFoundException when none has that name (404) */
    @GET
    @Path("{name}")
    @Operation(summary = "One webhook endpoint and its health")
    public JsonObject endpoint(@PathParam("name") String name) {
        return json(webhooks.endpoint(name).orElseThrow(() -> unknown(name)));
    }

    /**
     * @return one page of the endpoint's parked deliveries, newest event first
     * @throws InvalidFilterException naming a bad status, page or size (400)
     */
    @GET
    @Path("{name}/deliveries")
    @Operation(summary = "An endpoint's parked deliveries", description = "The deliveries that failed, wait behind"
            + " a failed one, or were given up; a delivered event leaves none. Newest event first. Parameters: status"
            + " (PENDING, FAILED), page (from 0), size (1 to 500, default 50).")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "200", description = "the delivery log",
            content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json",
                    schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(
                            type = org.eclipse.microprofile.openapi.annotations.enums.SchemaType.ARRAY,
                            implementation = Object.class)))
    public JsonArray deliveries(@PathParam("name") String name, @QueryParam("status") String status,
                                @QueryParam("page") String page, @QueryParam("size") String size)
            throws InvalidFilterException {
        webhooks.endpoint(name).orElseThrow(() -> unknown(name));
        int p = whole("page", page, 0);
        int s = whole("size", size, 50);
        JsonArrayBuilder rows = Json.createArrayBuilder();
        for (WebhookDelivery d : webhooks.deliveries(name, status, p, s)) {
            JsonObjectBuilder row = Json.createObjectBuilder().add("eventId", "evt_" + d.eventId());
            if (d.type() != null) {
                row.add("type", d.type().wireName());
            }
            row.add("status", d.status()).add("attempts", d.attempts());
            if (d.mailId() != null) {
                row.add("mailId", d.mailId());
            }
            time(row, "createdAt", d.createdAt());
            time(row, "nextAttemptAt", "PENDING".equals(d.status()) ? d.nextAttemptAt() : null);
            time(row, "lastAttemptAt", d.lastAttemptAt());
            if (d.httpStatus() != null) {
                row.add("httpStatus", d.httpStatus());
            }
            if (d.lastError() != null) {
                row.add("lastError", d.lastError());
            }
            rows.add(row);
        }
        return rows.build();
    }

    /**
     * Sends the event to the endpoint again, as soon as possible, with the same webhook-id.
     *
     * @throws NotFoundException when there is no such event (404)
     */
    @POST
    @Path("{name}/deliveries/{eventId: evt_[0-9]+}/redeliver")
    @Operation(summary = "Redeliver one event", description = "Due at once, whatever its status; the same webhook-id.")
    public void redeliver(@PathParam("name") String name, @PathParam("eventId") String eventId) {
        webhooks.endpoint(name).orElseThrow(() -> unknown(name));
        long id;
        try {
            id = Long.parseLong(eventId.substring(4));
        } catch (NumberFormatException e) {
            throw new NotFoundException("there is no event " + eventId);
        }
        if (!webhooks.redeliver(name, id)) {
            throw new NotFoundException("there is no event " + eventId);
        }
    }

    /** Enables a disabled endpoint. @throws NotFoundException when it is not disabled (404) */
    @POST
    @Path("{name}/enable")
    @Operation(summary = "Enable an endpoint that was disabled for failing too long")
    public JsonObject enable(@PathParam("name") String name) {
        webhooks.endpoint(name).orElseThrow(() -> unknown(name));
        if (!webhooks.enable(name)) {
            throw new NotFoundException("endpoint " + name + " is not disabled");
        }
        return endpoint(name);
    }

    private static JsonObject json(WebhookEndpointView v) {
        JsonArrayBuilder events = Json.createArrayBuilder();
        v.events().stream().map(EventType::wireName).sorted().forEach(events::add);
        JsonArrayBuilder campaigns = Json.createArrayBuilder();
        v.campaigns().stream().sorted().forEach(campaigns::add);
        JsonObjectBuilder o = Json.createObjectBuilder().add("name", v.name())
                .add("url", v.url().toString()).add("events", events).add("campaigns", campaigns)
                .add("disabled", v.disabled()).add("pending", v.pending()).add("failed", v.failed());
        time(o, "failingSince", v.failingSince());
        time(o, "disabledAt", v.disabledAt());
        time(o, "lastSuccessAt", v.lastSuccessAt());
        if (v.cursor() != null) {
            o.add("cursorPosition", v.cursor());
        }
        time(o, "cursorMovedAt", v.cursorMovedAt());
        return o.build();
    }

    private static void time(JsonObjectBuilder o, String name, Instant at) {
        if (at != null) {
            o.add(name, at.toString());
        }
    }

    private static NotFoundException unknown(String name) {
        return new NotFoundException("no webhook endpoint is named " + name);
    }

    private static int whole(String name, String value, int absent) throws InvalidFilterException {
        if (value == null) {
            return absent;
        }
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new InvalidFilterException(List.of(new FieldError(name, "must be a whole number, was '" + value + "'")));
        }
    }
}
