package dev.mailqueue.api;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which stored template a mail is rendered from, in which locale, with which variables: the {@code template}
 * of a {@link MailRequest}, in place of its subject, text and HTML. The mail is rendered when it is enqueued;
 * what is stored is what is sent, so replacing the template later does not change it.
 *
 * <p>Variables are what JSON holds: strings, numbers, booleans, lists and maps with string keys, nested at most
 * {@value MailLimits#TEMPLATE_VARIABLE_DEPTH} deep. Any other type (a caller's own object, say) is refused with
 * an {@link InvalidMailException} naming the variable: a template reads data, never calls code.
 */
public class TemplateRef implements Serializable {

    private static final long serialVersionUID = 1L;

    private String name;
    private String locale;
    private LinkedHashMap<String, Object> variables = new LinkedHashMap<>();

    /** An empty reference, for JSON binding and fluent building. */
    public TemplateRef() {
    }

    /**
     * @param name      the template's name ({@link MailLimits#TEMPLATE_NAME})
     * @param locale    a BCP 47 tag such as {@code de-CH}, or null for the template's default locale
     * @param variables the variables the template reads, by name
     */
    public TemplateRef(String name, String locale, Map<String, ?> variables) {
        this.name = name;
        this.locale = locale;
        setVariables(variables == null ? null : new LinkedHashMap<>(variables));
    }

    /** @return the template's name, required, matching {@link MailLimits#TEMPLATE_NAME} */
    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    /**
     * @return the locale to render in, a BCP 47 tag (RFC 5646), optional. The template's locales are matched by
     *         RFC 4647 §3.4 lookup: {@code de-CH} takes {@code de-CH}, else {@code de}, else the template's
     *         default locale
     */
    public String getLocale() {
        return locale;
    }

    public void setLocale(String locale) {
        this.locale = locale;
    }

    /** @return the variables, by name, in the order given; never null */
    public Map<String, Object> getVariables() {
        return variables;
    }

    public void setVariables(Map<String, Object> variables) {
        this.variables = variables == null ? new LinkedHashMap<>() : new LinkedHashMap<>(variables);
    }
}
