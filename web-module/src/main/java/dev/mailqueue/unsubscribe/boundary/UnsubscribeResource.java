package dev.mailqueue.unsubscribe.boundary;

import dev.mailqueue.http.control.Problem;
import dev.mailqueue.unsubscribe.control.UnsubscribeToken;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.Optional;

/**
 * {@code /api/unsubscribe/{token}}, the target of the {@code List-Unsubscribe} links the queue writes into
 * mails of a list ({@code mailqueue.unsubscribe.url}). Needs no login (web.xml): the signed token is the
 * authority, and the cross-site rules of the rest of the API do not apply here
 * ({@code dev.mailqueue.http.boundary.RequestGuard}), because a mailbox provider posts from its own
 * servers.
 * <ul>
 *   <li>{@code POST}: the one-click unsubscribe of RFC 8058 §3.2, as mailbox providers send it (body
 *       {@code List-Unsubscribe=One-Click}, form-encoded; the body is not needed, the token says it
 *       all), or the button of the page below. Suppresses the address for that list; 200 with a short
 *       HTML confirmation.</li>
 *   <li>{@code GET}: a page that names the address and the list and asks to confirm with a button; it
 *       changes nothing (RFC 8058 §3.2: link checkers and prefetching open links with GET).</li>
 * </ul>
 * A token that is malformed, forged or from another installation answers 404 with problem details, and
 * nothing changes.
 */
@Path("unsubscribe/{token}")
@RequestScoped
@Tag(name = "unsubscribe", description = "One-click unsubscribe links (RFC 8058); no login")
public class UnsubscribeResource {

    private static final MediaType HTML = new MediaType("text", "html", "UTF-8");

    @EJB
    Unsubscriptions unsubscriptions;

    /**
     * @param token the link's token
     * @return 200 with a confirmation page, or 404 problem details
     */
    @GET
    @Operation(summary = "Show the unsubscribe page of a link", description = "Changes nothing; 404 for a bad token.")
    public Response page(@PathParam("token") String token) {
        return answer(unsubscriptions.check(token), false);
    }

    /**
     * @param token the link's token
     * @return 200 with a page saying the address is unsubscribed, or 404 problem details
     */
    @POST
    @Operation(summary = "Unsubscribe (one click)", description = "Suppresses the link's address for its list;"
            + " repeating it changes nothing; 404 for a bad token.")
    public Response unsubscribe(@PathParam("token") String token) {
        return answer(unsubscriptions.unsubscribe(token), true);
    }

    private static Response answer(Optional<UnsubscribeToken> link, boolean done) {
        if (link.isEmpty()) {
            return new Problem("urn:mailqueue:problem:not-found", "Not Found", 404,
                    "This unsubscribe link is not valid; nothing was changed.", List.of()).toResponse();
        }
        return Response.ok(UnsubscribePage.of(link.get(), done), HTML)
                .header("Cache-Control", "no-store")
                .header("Referrer-Policy", "no-referrer")
                .build();
    }
}
