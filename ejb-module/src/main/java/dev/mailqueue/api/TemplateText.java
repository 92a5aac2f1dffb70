package dev.mailqueue.api;

import java.io.Serializable;

/**
 * One locale of a template: its parts as FreeMarker source, or, from a preview, as rendered. A template needs a
 * text or an HTML part (or both); a mail rendered from one with HTML only gets a text part derived from the HTML.
 *
 * @param locale  a BCP 47 tag (RFC 5646), as {@link java.util.Locale#toLanguageTag()} writes it
 * @param subject the subject, at most {@value MailLimits#SUBJECT_CHARS} characters, or null for none
 * @param text    the plain-text part, at most {@value MailLimits#BODY_CHARS} characters, or null
 * @param html    the HTML part, at most {@value MailLimits#BODY_CHARS} characters, or null; variables written into
 *                it are HTML-escaped unless the template asks otherwise ({@code ?no_esc})
 */
public record TemplateText(String locale, String subject, String text, String html) implements Serializable {
}
