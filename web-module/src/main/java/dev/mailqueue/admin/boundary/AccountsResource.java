package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.InvalidFilterException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.JsonObject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/admin/accounts/{name}}: pause and resume dispatch of one SMTP account, on every server at
 * once. Answers as {@code GET /api/admin/dispatch} does. A name that is not an account name is a 400
 * problem naming {@code name}. Role {@code mail-admin}.
 */
@Path("admin/accounts/{name}")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "dispatch", description = "Pausing and resuming dispatch (role mail-admin)")
public class AccountsResource {

    @EJB
    DispatchPauses pauses;

    /** @return dispatch's state @throws InvalidFilterException for a bad name (400) */
    @POST
    @Path("pause")
    @Operation(summary = "Pause dispatch of one SMTP account", description = "No server claims the mail routed to it"
            + " (for the default account also mail routed to none) until it is resumed; it waits QUEUED, no attempt"
            + " spent. Mail being sent now finishes. A repeat changes nothing.")
    public JsonObject pause(@PathParam("name") String name) throws InvalidFilterException {
        return DispatchResource.json(pauses.pauseAccount(name));
    }

    /** @return dispatch's state @throws InvalidFilterException for a bad name (400) */
    @POST
    @Path("resume")
    @Operation(summary = "Resume dispatch of one SMTP account")
    public JsonObject resume(@PathParam("name") String name) throws InvalidFilterException {
        return DispatchResource.json(pauses.resumeAccount(name));
    }
}
