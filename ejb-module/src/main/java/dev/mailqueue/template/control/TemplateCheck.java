package dev.mailqueue.template.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.TemplateText;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The rules a template must keep to be stored: a name matching {@link MailLimits#TEMPLATE_NAME}; 1 to
 * {@value MailLimits#TEMPLATE_LOCALES} locales, each a distinct well-formed BCP 47 tag (stored as
 * {@link Locale#toLanguageTag()} writes it); a default locale among them; in each locale a text or an HTML part,
 * the subject at most {@value MailLimits#SUBJECT_CHARS} characters and each part at most
 * {@value MailLimits#BODY_CHARS}; every part parsing as FreeMarker source; and every part keeping to the render
 * limits ({@link RenderLimits}, the output length, the stack) in a trial render with no variables
 * ({@link TemplateEngine#trial}): a template that passes a limit with no variables passes it for every mail.
 */
public final class TemplateCheck {

    private TemplateCheck() {
    }

    /**
     * @param name          the template's name
     * @param defaultLocale its default locale's tag
     * @param locales       its locales
     * @param engine        the engine that compiles them
     * @param errors        where the faults are added, named {@code name}, {@code defaultLocale},
     *                      {@code locales}, {@code locales.<tag>.<part>}
     * @return the locales with their tags normalized; meaningless when errors were added
     */
    public static List<TemplateText> check(String name, String defaultLocale, List<TemplateText> locales,
                                           TemplateEngine engine, List<FieldError> errors) {
        if (name == null || !name.matches(MailLimits.TEMPLATE_NAME)) {
            errors.add(new FieldError("name", "is not a template name (A-Z a-z 0-9 . _ -, 1 to 64 characters)"));
        }
        if (locales == null || locales.isEmpty() || locales.size() > MailLimits.TEMPLATE_LOCALES) {
            errors.add(new FieldError("locales", "must hold 1 to " + MailLimits.TEMPLATE_LOCALES + " locales"));
            return List.of();
        }
        List<TemplateText> normalized = new ArrayList<>(locales.size());
        Set<String> tags = new HashSet<>();
        for (TemplateText locale : locales) {
            String field = "locales." + locale.locale();
            if (locale.locale() == null || !TemplateRendering.wellFormed(locale.locale())) {
                errors.add(new FieldError(field, "is not a BCP 47 language tag (RFC 5646), such as de-CH"));
                continue;
            }
            String tag = Locale.forLanguageTag(locale.locale()).toLanguageTag();
            if (!tags.add(tag)) {
                errors.add(new FieldError(field, "is the same locale as another one (" + tag + ")"));
                continue;
            }
            TemplateText text = new TemplateText(tag, locale.subject(), locale.text(), locale.html());
            if (text.text() == null && text.html() == null) {
                errors.add(new FieldError(field, "needs a text or an html part"));
            }
            int before = errors.size();
            length(field + ".subject", text.subject(), MailLimits.SUBJECT_CHARS, errors);
            length(field + ".text", text.text(), MailLimits.BODY_CHARS, errors);
            length(field + ".html", text.html(), MailLimits.BODY_CHARS, errors);
            try {
                TemplateEngine.Compiled compiled = engine.compile(name, text);
                if (errors.size() == before) { // a part too long already is named; its trial would say it again
                    engine.trial(compiled);
                }
            } catch (TemplateEngine.Failure f) {
                errors.add(new FieldError(field + "." + f.part(), f.getMessage()));
            }
            normalized.add(text);
        }
        String defaultTag = defaultLocale == null || !TemplateRendering.wellFormed(defaultLocale) ? null
                : Locale.forLanguageTag(defaultLocale).toLanguageTag();
        if (defaultTag == null || !tags.contains(defaultTag)) {
            errors.add(new FieldError("defaultLocale", "must be one of the template's locales " + tags));
        }
        return normalized;
    }

    private static void length(String field, String text, int max, List<FieldError> errors) {
        if (text != null && text.length() > max) {
            errors.add(new FieldError(field, "must be at most " + max + " characters"));
        }
    }
}
