package dev.mailqueue.template.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.TemplateRef;
import dev.mailqueue.api.TemplateText;
import dev.mailqueue.api.TemplateView;
import dev.mailqueue.queue.control.TemplateStore;
import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IllformedLocaleException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Renders the mails of one enqueue call that name a {@link MailRequest#getTemplate() template}: the newest
 * version of each template is read once per call, each of its locales compiled once per version, and every mail
 * rendered with its own variables. A mail without a template passes unchanged.
 *
 * <p>Every fault is an {@link InvalidMailException} naming the template, the locale and the variable, and the
 * call queues nothing: a template together with subject, text or HTML; a name that is no stored template; a
 * locale that is no BCP 47 tag; a variable of a shape JSON cannot hold ({@link TemplateVariables}); a variable
 * the template reads that is not given, or given with the wrong type for its use; a part that renders longer
 * than a mail may be; and all the call's mails together rendering more than
 * {@value #SETTING} characters.
 */
@ApplicationScoped
public class TemplateRendering {

    /** The setting that caps the characters all mails of one call may render to. */
    public static final String SETTING = "mailqueue.templates.max-rendered-chars";

    @Inject
    TemplateStore store;

    @Inject
    TemplateEngine engine;

    long maxRenderedChars;

    /**
     * @param store            the templates
     * @param engine           the engine
     * @param maxRenderedChars the cap of one call's rendered characters
     * @return a renderer outside a container (tests)
     */
    public static TemplateRendering of(TemplateStore store, TemplateEngine engine, long maxRenderedChars) {
        TemplateRendering rendering = new TemplateRendering();
        rendering.store = store;
        rendering.engine = engine;
        rendering.maxRenderedChars = maxRenderedChars;
        return rendering;
    }

    @PostConstruct
    void read() {
        maxRenderedChars = Settings.fromConfig(TemplateRendering.class).whole(SETTING, 1, Long.MAX_VALUE);
    }

    /**
     * @param request a mail
     * @return the mail with its subject, text and HTML rendered from its template (a text part derived from the
     *         HTML when the template has none), or the request itself when it names no template
     * @throws InvalidMailException naming {@code template...} when it cannot be rendered
     */
    public MailRequest render(MailRequest request) throws InvalidMailException {
        if (request == null || request.getTemplate() == null) {
            return request; // a composed mail (or none: the validator refuses it) passes as it is
        }
        return renderAll(List.of(request), false).get(0);
    }

    /**
     * @param requests the mails of one bulk enqueue
     * @return them rendered, in order (see {@link #render})
     * @throws InvalidMailException naming {@code [index].template...} for every mail that cannot be rendered
     */
    public List<MailRequest> renderAll(List<MailRequest> requests) throws InvalidMailException {
        return renderAll(requests, true);
    }

    private List<MailRequest> renderAll(List<MailRequest> requests, boolean indexed) throws InvalidMailException {
        if (requests == null || requests.stream().allMatch(r -> r == null || r.getTemplate() == null)) {
            return requests;
        }
        Map<String, Optional<TemplateView>> templates = new HashMap<>();
        List<MailRequest> rendered = new ArrayList<>(requests.size());
        List<FieldError> errors = new ArrayList<>();
        long chars = 0;
        for (int i = 0; i < requests.size(); i++) {
            MailRequest request = requests.get(i);
            String prefix = indexed ? "[" + i + "]." : "";
            if (request == null || request.getTemplate() == null) {
                rendered.add(request);
                continue;
            }
            Outcome outcome = render(request, prefix, templates);
            if (outcome.error() != null) {
                errors.add(outcome.error());
                rendered.add(request);
                continue;
            }
            TemplateText text = outcome.text();
            chars += length(text.subject()) + length(text.text()) + length(text.html());
            if (chars > maxRenderedChars) {
                errors.add(new FieldError(prefix + "template", "renders the call's mails to more than "
                        + maxRenderedChars + " characters (" + SETTING + "): send fewer mails per call"));
                break;
            }
            rendered.add(request.rendered(text.subject(), text.text(), text.html()));
        }
        if (!errors.isEmpty()) {
            throw new InvalidMailException(errors);
        }
        return rendered;
    }

    /**
     * Renders a template as a mail would be, without queueing anything.
     *
     * @param name      the template's name
     * @param locale    a BCP 47 tag, or null for the default locale
     * @param variables the variables
     * @return the rendered parts, with the locale that was picked
     * @throws dev.mailqueue.api.InvalidTemplateException naming {@code template...} as an enqueue would
     */
    public TemplateText preview(String name, String locale, Map<String, Object> variables)
            throws dev.mailqueue.api.InvalidTemplateException {
        MailRequest request = new MailRequest().template(name, locale, variables);
        Outcome outcome = render(request, "", new HashMap<>());
        if (outcome.error() != null) {
            throw new dev.mailqueue.api.InvalidTemplateException(List.of(outcome.error()));
        }
        return outcome.text();
    }

    private record Outcome(TemplateText text, FieldError error) {
    }

    private Outcome render(MailRequest request, String prefix, Map<String, Optional<TemplateView>> templates) {
        TemplateRef ref = request.getTemplate();
        String field = prefix + "template";
        if (request.getSubject() != null || request.getText() != null || request.getHtml() != null) {
            return failed(field, "takes the place of subject, text and html: leave them out");
        }
        if (ref.getName() == null || !ref.getName().matches(MailLimits.TEMPLATE_NAME)) {
            return failed(field + ".name", ref.getName() == null ? "is required"
                    : "is not a template name (A-Z a-z 0-9 . _ -, 1 to 64 characters)");
        }
        if (ref.getLocale() != null && !wellFormed(ref.getLocale())) {
            return failed(field + ".locale", "is not a BCP 47 language tag (RFC 5646), such as de-CH");
        }
        TemplateVariables.Result variables = TemplateVariables.check(ref.getVariables(), field + ".variables");
        if (variables.error().isPresent()) {
            return new Outcome(null, variables.error().get());
        }
        Optional<TemplateView> template = templates.computeIfAbsent(ref.getName(), store::newest);
        if (template.isEmpty()) {
            return failed(field + ".name", "is no stored template: " + ref.getName());
        }
        TemplateView view = template.get();
        TemplateText source = view.locale(lookup(view, ref.getLocale()));
        String where = "template " + view.name() + " version " + view.version() + ", locale " + source.locale();
        try {
            TemplateText text = engine.render(engine.compiled(view.name(), view.version(), source), variables.variables());
            if (text.html() != null && text.text() == null) {
                text = new TemplateText(text.locale(), text.subject(), HtmlText.of(text.html()), text.html());
            }
            return new Outcome(text, null);
        } catch (TemplateEngine.Failure f) {
            String at = f.part() + (f.line() > 0 ? " line " + f.line() : "");
            if (f.variable() != null) {
                return failed(field + ".variables." + f.variable(), f.getMessage() + " (" + where + ", " + at + ")");
            }
            return failed(field, where + ": " + at + " " + f.getMessage());
        }
    }

    /**
     * @param template  a template
     * @param requested a BCP 47 tag, or null
     * @return the tag of the template's locale that RFC 4647 §3.4 lookup picks for it, else its default locale's
     */
    public static String lookup(TemplateView template, String requested) {
        if (requested != null) {
            List<String> tags = template.locales().stream().map(TemplateText::locale).toList();
            String found = Locale.lookupTag(Locale.LanguageRange.parse(requested), tags);
            if (found != null) {
                return template.locales().stream().map(TemplateText::locale).filter(found::equalsIgnoreCase)
                        .findFirst().orElse(template.defaultLocale());
            }
        }
        return template.defaultLocale();
    }

    /**
     * @param tag a language tag
     * @return true when it is a well-formed BCP 47 tag (RFC 5646) of at most 35 characters
     */
    public static boolean wellFormed(String tag) {
        if (tag.isEmpty() || tag.length() > 35) {
            return false;
        }
        try {
            new Locale.Builder().setLanguageTag(tag);
            return true;
        } catch (IllformedLocaleException e) {
            return false;
        }
    }

    private static Outcome failed(String field, String message) {
        return new Outcome(null, new FieldError(field, message));
    }

    private static long length(String s) {
        return s == null ? 0 : s.length();
    }
}
