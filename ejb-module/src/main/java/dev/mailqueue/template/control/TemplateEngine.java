package dev.mailqueue.template.control;

import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.TemplateText;
import freemarker.core.HTMLOutputFormat;
import freemarker.core.InvalidReferenceException;
import freemarker.core.OutputFormat;
import freemarker.core.ParseException;
import freemarker.core.PlainTextOutputFormat;
import freemarker.core.TemplateClassResolver;
import freemarker.template.Configuration;
import freemarker.template.Template;
import freemarker.template.TemplateException;
import freemarker.template.TemplateExceptionHandler;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Compiles and renders templates with Apache FreeMarker (docs/templates.md says why FreeMarker). The HTML part
 * is rendered with the HTML output format, so every {@code ${...}} is escaped unless the template says
 * {@code ?no_esc}; subject and text are plain text. An undefined variable is an error, never an empty string.
 * Templates read data only: {@code ?new} may create no class and {@code ?api} is off.
 *
 * <p>A compiled template is kept per name, version and locale (versions never change), the
 * {@value #CACHED} most recently used, so a mail merge compiles each part once.
 */
@ApplicationScoped
public class TemplateEngine {

    /** Compiled locales kept. */
    static final int CACHED = 256;

    private final Configuration plain = configuration(PlainTextOutputFormat.INSTANCE);
    private final Configuration html = configuration(HTMLOutputFormat.INSTANCE);
    private final Map<String, Compiled> cache = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Compiled> eldest) {
            return size() > CACHED;
        }
    };

    private static Configuration configuration(OutputFormat format) {
        Configuration c = new Configuration(Configuration.VERSION_2_3_34);
        c.setOutputFormat(format);
        c.setAutoEscapingPolicy(Configuration.ENABLE_IF_DEFAULT_AUTO_ESCAPING_POLICY);
        c.setTemplateExceptionHandler(TemplateExceptionHandler.RETHROW_HANDLER);
        c.setLogTemplateExceptions(false);
        c.setWrapUncheckedExceptions(true);
        c.setFallbackOnNullLoopVariable(false);
        c.setNewBuiltinClassResolver(TemplateClassResolver.ALLOWS_NOTHING_RESOLVER);
        c.setAPIBuiltinEnabled(false);
        c.setTemplateLoader(null); // no #include or #import: a template is its own source
        c.setLocalizedLookup(false);
        return c;
    }

    /** One locale's parts, compiled; a part the template does not have is null. */
    public record Compiled(String locale, Template subject, Template text, Template html) {
    }

    /**
     * A part that does not parse, or a render that failed.
     *
     * @param part       {@code subject}, {@code text} or {@code html}
     * @param variable   the expression at fault as the template writes it (a variable's name, or a path such as
     *                   {@code order.items}), or null when the fault is not one expression's
     * @param line       the line in the part, 1 for the first; 0 when unknown
     * @param message    what is wrong, one line
     */
    public static final class Failure extends Exception {

        private static final long serialVersionUID = 1L;

        private final String part;
        private final String variable;
        private final int line;

        Failure(String part, String variable, int line, String message) {
            super(message);
            this.part = part;
            this.variable = variable;
            this.line = line;
        }

        /** @return {@code subject}, {@code text} or {@code html} */
        public String part() {
            return part;
        }

        /** @return the expression at fault, or null */
        public String variable() {
            return variable;
        }

        /** @return the line in the part, 1 for the first; 0 when unknown */
        public int line() {
            return line;
        }
    }

    /**
     * @param name    the template's name, for messages
     * @param version its version
     * @param source  one locale's parts
     * @return them compiled, from the cache when that version's locale was compiled before
     * @throws Failure when a part does not parse
     */
    public Compiled compiled(String name, int version, TemplateText source) throws Failure {
        String key = name + '\n' + version + '\n' + source.locale();
        synchronized (cache) {
            Compiled known = cache.get(key);
            if (known != null) {
                return known;
            }
        }
        Compiled compiled = compile(name, source);
        synchronized (cache) {
            cache.put(key, compiled);
        }
        return compiled;
    }

    /**
     * @param name   the template's name, for messages
     * @param source one locale's parts
     * @return them compiled
     * @throws Failure naming the first part that does not parse, its line and what is wrong
     */
    public Compiled compile(String name, TemplateText source) throws Failure {
        return new Compiled(source.locale(), parse(name, "subject", source.subject(), plain),
                parse(name, "text", source.text(), plain), parse(name, "html", source.html(), html));
    }

    private static Template parse(String name, String part, String source, Configuration configuration) throws Failure {
        if (source == null) {
            return null;
        }
        try {
            return new Template(name + ":" + part, source, configuration);
        } catch (ParseException e) {
            throw new Failure(part, null, e.getLineNumber(), "does not parse: line " + e.getLineNumber() + ", column "
                    + e.getColumnNumber() + ": " + firstLine(e.getEditorMessage()));
        } catch (IOException e) {
            throw new Failure(part, null, 0, "does not parse: " + firstLine(e.getMessage()));
        }
    }

    /**
     * @param template  a locale's compiled parts
     * @param variables the variables, checked by {@link TemplateVariables}
     * @return the rendered subject, text and HTML (null where the template has no such part), with the locale
     * @throws Failure naming the part and the expression at fault: an undefined variable, a variable of the wrong
     *                 type for its use, or output longer than the part may be
     */
    public TemplateText render(Compiled template, Map<String, Object> variables) throws Failure {
        Locale locale = Locale.forLanguageTag(template.locale());
        return new TemplateText(template.locale(),
                render(template.subject(), "subject", variables, locale, MailLimits.SUBJECT_CHARS),
                render(template.text(), "text", variables, locale, MailLimits.BODY_CHARS),
                render(template.html(), "html", variables, locale, MailLimits.BODY_CHARS));
    }

    private static String render(Template template, String part, Map<String, Object> variables, Locale locale,
                                 int maxChars) throws Failure {
        if (template == null) {
            return null;
        }
        CappedWriter out = new CappedWriter(maxChars);
        try {
            var environment = template.createProcessingEnvironment(variables, out);
            environment.setLocale(locale);
            environment.process();
            return out.toString();
        } catch (InvalidReferenceException e) {
            throw new Failure(part, e.getBlamedExpressionString(), line(e), "is not defined"
                    + (e.getBlamedExpressionString() == null ? ": " + firstLine(e.getMessageWithoutStackTop()) : ""));
        } catch (TemplateException e) {
            throw new Failure(part, e.getBlamedExpressionString(), line(e),
                    "cannot be rendered: " + firstLine(e.getMessageWithoutStackTop()));
        } catch (CappedWriter.Full e) {
            throw new Failure(part, null, 0, "renders longer than " + maxChars + " characters");
        } catch (IOException e) {
            throw new Failure(part, null, 0, "cannot be rendered: " + firstLine(e.getMessage()));
        }
    }

    private static int line(TemplateException e) {
        return e.getLineNumber() == null ? 0 : e.getLineNumber();
    }

    /** @return the text's first non-blank line, at most 300 characters */
    static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        for (String line : text.split("\\R")) {
            String stripped = line.strip();
            if (!stripped.isEmpty()) {
                return stripped.length() > 300 ? stripped.substring(0, 300) + "..." : stripped;
            }
        }
        return "";
    }

    /** A writer into memory that stops a render once it has written more than its limit. */
    static final class CappedWriter extends Writer {

        /** Thrown when the output would pass the limit. */
        static final class Full extends IOException {
            private static final long serialVersionUID = 1L;
        }

        private final StringBuilder text = new StringBuilder();
        private final int maxChars;

        CappedWriter(int maxChars) {
            this.maxChars = maxChars;
        }

        @Override
        public void write(char[] chars, int offset, int length) throws IOException {
            if (text.length() + length > maxChars) {
                throw new Full();
            }
            text.append(chars, offset, length);
        }

        @Override
        public void write(String s, int offset, int length) throws IOException {
            if (text.length() + length > maxChars) {
                throw new Full();
            }
            text.append(s, offset, offset + length);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}
