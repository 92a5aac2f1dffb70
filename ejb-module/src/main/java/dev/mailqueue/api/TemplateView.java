package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;

/**
 * One version of a stored template. Versions are never changed: replacing a template stores the next version,
 * and mail is rendered from the newest.
 *
 * @param name          its name ({@link MailLimits#TEMPLATE_NAME})
 * @param version       1 for the first, one more for each replacement
 * @param defaultLocale the locale a request falls back to when none of its own matches
 * @param createdAt     when this version was stored
 * @param createdBy     the user who stored it
 * @param locales       its locales, by tag, at most {@value MailLimits#TEMPLATE_LOCALES}
 */
public record TemplateView(String name, int version, String defaultLocale, Instant createdAt, String createdBy,
                           List<TemplateText> locales) implements Serializable {

    /**
     * @param tag a locale's tag as stored
     * @return that locale's parts, or null when the template has no such locale
     */
    public TemplateText locale(String tag) {
        return locales.stream().filter(l -> l.locale().equals(tag)).findFirst().orElse(null);
    }
}
