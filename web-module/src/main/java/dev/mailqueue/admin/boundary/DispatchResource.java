package dev.mailqueue.admin.boundary;

import dev.mailqueue.login.boundary.LoginView;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/admin/dispatch}: whether dispatch of the whole queue and of each SMTP account is paused,
 * and pause and resume of the whole queue, on every server at once. Every answer is
 * {@code {"paused", "pausedAt", "pausedBy", "accounts": [{"name", "paused", "pausedAt", "pausedBy",
 * "default", "configured", "login"}]}} (see {@link #json}); {@code login} is how the account logs in on the server
 * that answers ({@link #login}). Role {@code mail-admin}; the GET also {@code mail-viewer}.
 */
@Path("admin/dispatch")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "dispatch", description = "Pausing and resuming dispatch (role mail-admin)")
public class DispatchResource {

    @EJB
    DispatchPauses pauses;

    /** @return the queue's and every account's pause */
    @GET
    @Operation(summary = "Whether the queue and each SMTP account are paused", description = "Every account this"
            + " server has, the default first, then any other paused account name.")
    public JsonObject state() {
        return json(pauses.state());
    }

    /** @return the state */
    @POST
    @Path("pause")
    @Operation(summary = "Pause dispatch of the whole queue", description = "No server claims any mail until it is"
            + " resumed; mail waits QUEUED, no attempt spent. Mail being sent now finishes. A repeat changes nothing.")
    public JsonObject pause() {
        return json(pauses.pauseQueue());
    }

    /** @return the state */
    @POST
    @Path("resume")
    @Operation(summary = "Resume dispatch of the whole queue", description = "Paused accounts stay paused.")
    public JsonObject resume() {
        return json(pauses.resumeQueue());
    }

    /**
     * @param state dispatch's state
     * @return it as JSON: times ISO-8601, {@code null} while not paused
     */
    static JsonObject json(DispatchPauses.DispatchState state) {
        JsonArrayBuilder accounts = Json.createArrayBuilder();
        for (DispatchPauses.AccountState account : state.accounts()) {
            accounts.add(pause(Json.createObjectBuilder().add("name", account.name()), account.pause())
                    .add("default", account.isDefault()).add("configured", account.configured())
                    .add("relay", account.relay()).add("login", login(account.login())));
        }
        return pause(Json.createObjectBuilder(), state.queue()).add("accounts", accounts).build();
    }

    /**
     * @param s an account's login on this server
     * @return {@code {"kind": "password"}} ({@code "aws-sigv4"} for an Amazon SES account), or {@code {"kind": "oauth2", "grant", "tokenUrl", "tokenExpiresAt",
     *         "renewedAt", "renewals", "refusals", "lastError", "lastErrorAt"}}: times ISO-8601 or null, never a token
     */
    static JsonObject login(LoginView s) {
        if (!"oauth2".equals(s.kind())) {
            return Json.createObjectBuilder().add("kind", s.kind()).build();
        }
        JsonObjectBuilder o = Json.createObjectBuilder().add("kind", "oauth2").add("grant", s.grant())
                .add("tokenUrl", s.tokenUrl()).add("renewals", s.renewals()).add("refusals", s.refusals());
        nullable(o, "tokenExpiresAt", s.tokenExpiresAt());
        nullable(o, "renewedAt", s.renewedAt());
        nullable(o, "lastError", s.lastError());
        nullable(o, "lastErrorAt", s.lastErrorAt());
        return o.build();
    }

    private static void nullable(JsonObjectBuilder o, String name, Object value) {
        if (value == null) {
            o.addNull(name);
        } else {
            o.add(name, value.toString());
        }
    }

    private static JsonObjectBuilder pause(JsonObjectBuilder o, DispatchPauses.Pause pause) {
        o.add("paused", pause != null);
        if (pause == null) {
            return o.addNull("pausedAt").addNull("pausedBy");
        }
        o.add("pausedAt", pause.at().toString());
        return pause.by() == null ? o.addNull("pausedBy") : o.add("pausedBy", pause.by());
    }
}
