package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.InvalidFilterException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/admin/campaigns/{name}}: a campaign's mail counts per status, and pause, resume and cancel
 * of everything it still has waiting, in one call each. Every answer is
 * {@code {"name", "paused", "counts": {STATUS: n}}}, and a cancel's also {@code "cancelled": n}. A name
 * that is not a campaign name is a 400 problem. Role {@code mail-admin}.
 */
@Path("admin/campaigns/{name}")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "campaigns", description = "Acting on a campaign's mail at once (role mail-admin)")
public class CampaignsResource {

    @EJB
    Campaigns campaigns;

    /** @return the campaign's state @throws InvalidFilterException for a bad name (400) */
    @GET
    @Operation(summary = "A campaign's mail per status, and whether it is paused")
    public JsonObject state(@PathParam("name") String name) throws InvalidFilterException {
        return json(campaigns.state(name));
    }

    /** @return the campaign's state @throws InvalidFilterException for a bad name (400) */
    @POST
    @Path("pause")
    @Operation(summary = "Pause a campaign", description = "No server claims its mail until it is resumed; its"
            + " mail waits QUEUED, no attempt spent. Mail being sent now finishes.")
    public JsonObject pause(@PathParam("name") String name) throws InvalidFilterException {
        return json(campaigns.pause(name));
    }

    /** @return the campaign's state @throws InvalidFilterException for a bad name (400) */
    @POST
    @Path("resume")
    @Operation(summary = "Resume a paused campaign")
    public JsonObject resume(@PathParam("name") String name) throws InvalidFilterException {
        return json(campaigns.resume(name));
    }

    /** @return the campaign's state with the number cancelled @throws InvalidFilterException for a bad name (400) */
    @POST
    @Path("cancel")
    @Operation(summary = "Cancel everything a campaign still has waiting", description = "QUEUED and HELD mail"
            + " becomes CANCELLED, each with a cancelled event; answers with the count.")
    public JsonObject cancel(@PathParam("name") String name) throws InvalidFilterException {
        return json(campaigns.cancel(name));
    }

    private static JsonObject json(Campaigns.CampaignState state) {
        JsonObjectBuilder counts = Json.createObjectBuilder();
        state.counts().forEach((status, n) -> counts.add(status.name(), n));
        JsonObjectBuilder o = Json.createObjectBuilder().add("name", state.name()).add("paused", state.paused())
                .add("counts", counts);
        if (state.cancelled() != null) {
            o.add("cancelled", state.cancelled());
        }
        return o.build();
    }
}
