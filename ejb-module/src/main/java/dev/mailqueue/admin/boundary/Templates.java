package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidTemplateException;
import dev.mailqueue.api.TemplateNotFoundException;
import dev.mailqueue.api.TemplateText;
import dev.mailqueue.api.TemplateView;
import dev.mailqueue.api.Roles;
import dev.mailqueue.queue.control.TemplateStore;
import dev.mailqueue.template.control.TemplateCheck;
import dev.mailqueue.template.control.TemplateEngine;
import dev.mailqueue.template.control.TemplateRendering;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.LocalBean;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The stored templates, for operators: store (a new version each time), list, read, preview and delete. Writing
 * needs the role {@code mail-admin}; reading also {@code mail-viewer}. Each method runs in the caller's
 * transaction (REQUIRED).
 */
@Stateless
@LocalBean
@RolesAllowed(Roles.ADMIN)
public class Templates {

    @Inject
    TemplateStore store;

    @Inject
    TemplateEngine engine;

    @Inject
    TemplateRendering rendering;

    @Resource
    SessionContext context;

    /**
     * Stores a template: version 1 under a name never used, else the next version (also after a deletion). Mail queued before keeps what it was
     * rendered from; mail enqueued after the commit is rendered from this version.
     *
     * @param name          the name ({@link dev.mailqueue.api.MailLimits#TEMPLATE_NAME})
     * @param defaultLocale the tag of the locale a request falls back to, one of {@code locales}
     * @param locales       each locale's FreeMarker source
     * @return the version stored
     * @throws InvalidTemplateException naming each field at fault ({@link TemplateCheck}); nothing is stored
     */
    public TemplateView store(String name, String defaultLocale, List<TemplateText> locales)
            throws InvalidTemplateException {
        List<FieldError> errors = new ArrayList<>();
        List<TemplateText> checked = TemplateCheck.check(name, defaultLocale, locales, engine, errors);
        if (!errors.isEmpty()) {
            throw new InvalidTemplateException(errors);
        }
        String defaultTag = java.util.Locale.forLanguageTag(defaultLocale).toLanguageTag();
        return store.store(name, defaultTag, checked, Instant.now(), context.getCallerPrincipal().getName());
    }

    /** @return the newest version of every template, by name */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<TemplateView> list() {
        return store.list();
    }

    /**
     * @param name a template's name
     * @return its newest version
     * @throws TemplateNotFoundException when no template has that name
     */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public TemplateView find(String name) throws TemplateNotFoundException {
        return store.newest(name).orElseThrow(() -> new TemplateNotFoundException(name));
    }

    /**
     * Renders the newest version as an enqueue would, and queues nothing.
     *
     * @param name      a template's name
     * @param locale    a BCP 47 tag, or null for the template's default locale
     * @param variables the variables
     * @return the rendered subject, text and HTML, with the locale picked
     * @throws TemplateNotFoundException when no template has that name
     * @throws InvalidTemplateException  naming the variable or part that cannot be rendered
     */
    public TemplateText preview(String name, String locale, Map<String, Object> variables)
            throws TemplateNotFoundException, InvalidTemplateException {
        find(name);
        return rendering.preview(name, locale, variables);
    }

    /**
     * Deletes every version of a template; mail rendered from it stays as it is. Its version numbers stay taken:
     * a template stored again under the name continues after the highest.
     *
     * @param name a template's name
     * @throws TemplateNotFoundException when no template has that name
     */
    public void delete(String name) throws TemplateNotFoundException {
        if (!store.delete(name, Instant.now(), context.getCallerPrincipal().getName())) {
            throw new TemplateNotFoundException(name);
        }
    }
}
