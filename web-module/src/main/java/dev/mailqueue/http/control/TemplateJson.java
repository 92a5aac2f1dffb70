package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.TemplateText;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Binds the JSON bodies of the template admin API with exact types ({@link JsonFields}): a template to store,
 * {@code {"defaultLocale": "en", "locales": {"en": {"subject", "text", "html"}, "de": {...}}}}, and a preview,
 * {@code {"locale": "de-CH", "variables": {...}}}. Unknown members are refused.
 */
public final class TemplateJson {

    private TemplateJson() {
    }

    /**
     * A template to store.
     *
     * @param defaultLocale the default locale's tag
     * @param locales       the locales, in the order given
     */
    public record Definition(String defaultLocale, List<TemplateText> locales) {
    }

    /**
     * A preview's input.
     *
     * @param locale    a BCP 47 tag, or null
     * @param variables the variables, never null
     */
    public record Preview(String locale, Map<String, Object> variables) {
    }

    /**
     * @param json   the body
     * @param errors where shape errors are added
     * @return the template; meaningless when errors were added
     */
    public static Definition definition(JsonValue json, List<FieldError> errors) {
        if (!(json instanceof JsonObject object)) {
            errors.add(new FieldError("", "must be a JSON object (a template)"));
            return new Definition(null, List.of());
        }
        JsonFields in = new JsonFields(object, "", errors);
        String defaultLocale = in.string("defaultLocale");
        JsonFields locales = in.object("locales");
        in.refuseUnread("a template");
        List<TemplateText> texts = new ArrayList<>();
        if (locales == null) {
            errors.add(new FieldError("locales", "is required: an object of locale tags to {subject, text, html}"));
            return new Definition(defaultLocale, texts);
        }
        for (String tag : locales.names()) {
            JsonFields locale = locales.object(tag);
            if (locale != null) {
                texts.add(new TemplateText(tag, locale.string("subject"), locale.string("text"), locale.string("html")));
                locale.refuseUnread("a template's locale");
            }
        }
        return new Definition(defaultLocale, texts);
    }

    /**
     * @param json   the body
     * @param errors where shape errors are added
     * @return the preview's input; meaningless when errors were added
     */
    public static Preview preview(JsonValue json, List<FieldError> errors) {
        if (!(json instanceof JsonObject object)) {
            errors.add(new FieldError("", "must be a JSON object ({locale, variables})"));
            return new Preview(null, Map.of());
        }
        JsonFields in = new JsonFields(object, "", errors);
        String locale = in.string("locale");
        LinkedHashMap<String, Object> variables = in.data("variables");
        in.refuseUnread("a preview");
        return new Preview(locale, variables == null ? new LinkedHashMap<>() : variables);
    }
}
