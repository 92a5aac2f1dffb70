package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidTemplateException;
import dev.mailqueue.api.TemplateNotFoundException;
import dev.mailqueue.api.TemplateText;
import dev.mailqueue.api.TemplateView;
import dev.mailqueue.http.boundary.JsonBodyReader;
import dev.mailqueue.http.boundary.ProblemException;
import dev.mailqueue.http.control.Problem;
import dev.mailqueue.http.control.TemplateJson;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * {@code /api/admin/templates}: store (PUT, a new version each time), list, read, preview and delete templates.
 * Writing and previewing need the role {@code mail-admin}, reading also {@code mail-viewer} (web.xml). Errors are
 * problem details: 400 {@code invalid-template} naming each field, 404 for an unknown name.
 */
@Path("admin/templates")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "templates", description = "Stored templates mail is rendered from (role mail-admin; reading also mail-viewer)")
public class TemplatesResource {

    private static final String NAME = "{name: [A-Za-z0-9._-]{1,64}}";

    @EJB
    Templates templates;

    /** @return the newest version of every template, by name */
    @GET
    @Operation(summary = "List templates", description = "The newest version of each, with every locale's source.")
    public List<TemplateView> list() {
        return templates.list();
    }

    /**
     * @param name a template's name
     * @return its newest version
     * @throws TemplateNotFoundException 404
     */
    @GET
    @Path(NAME)
    @Operation(summary = "Read a template", description = "Its newest version, with every locale's source.")
    public TemplateView find(@PathParam("name") String name) throws TemplateNotFoundException {
        return templates.find(name);
    }

    /**
     * @param name a template's name
     * @param body {@code {"defaultLocale": "en", "locales": {"en": {"subject", "text", "html"}, ...}}}
     * @return the version stored: 201 when the name had no template (never stored, or deleted), 200 for a replacement
     * @throws InvalidTemplateException naming each field at fault (400)
     * @throws IOException              when the body cannot be read
     */
    @PUT
    @Path(NAME)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Store a template", description = "A new template (201) or the next version of one (200)."
            + " Mail already queued keeps what it was rendered from.")
    public Response store(@PathParam("name") String name, InputStream body) throws InvalidTemplateException, IOException {
        TemplateJson.Definition definition = read(body, TemplateJson::definition);
        boolean replacing = true; // after a deletion the version is not 1, but the template is new again
        try {
            templates.find(name);
        } catch (dev.mailqueue.api.TemplateNotFoundException e) {
            replacing = false;
        }
        TemplateView stored = templates.store(name, definition.defaultLocale(), definition.locales());
        return Response.status(replacing ? 200 : 201).entity(stored).build();
    }

    /**
     * @param name a template's name
     * @param body {@code {"locale": "de-CH", "variables": {...}}}
     * @return the rendered parts and the locale picked; nothing is queued
     * @throws TemplateNotFoundException 404
     * @throws InvalidTemplateException  naming the variable or part that cannot be rendered (400)
     * @throws IOException               when the body cannot be read
     */
    @POST
    @Path(NAME + "/preview")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Preview a template", description = "Renders it as an enqueue would; queues nothing.")
    public TemplateText preview(@PathParam("name") String name, InputStream body)
            throws TemplateNotFoundException, InvalidTemplateException, IOException {
        TemplateJson.Preview preview = read(body, TemplateJson::preview);
        return templates.preview(name, preview.locale(), preview.variables());
    }

    /**
     * @param name a template's name
     * @throws TemplateNotFoundException 404
     */
    @DELETE
    @Path(NAME)
    @Operation(summary = "Delete a template", description = "Every version; mail rendered from it stays as it is.")
    public void delete(@PathParam("name") String name) throws TemplateNotFoundException {
        templates.delete(name);
    }

    private static <T> T read(InputStream body, BiFunction<JsonValue, List<FieldError>, T> binder) throws IOException {
        List<FieldError> errors = new ArrayList<>();
        T result = binder.apply(JsonBodyReader.json(body), errors);
        if (!errors.isEmpty()) {
            throw new ProblemException(new Problem("urn:mailqueue:problem:invalid-template", "Invalid template", 400,
                    "Nothing was stored or rendered: " + errors.size() + " field(s) at fault.", errors));
        }
        return result;
    }
}
