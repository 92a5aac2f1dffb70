package dev.mailqueue.template.control;

import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.TemplateText;
import freemarker.core.HTMLOutputFormat;
import freemarker.core.InvalidReferenceException;
import freemarker.core.OutputFormat;
import freemarker.core.ParseException;
import freemarker.core.PlainTextOutputFormat;
import freemarker.core.TemplateClassResolver;
import freemarker.core._CoreAPI;
import freemarker.template.Configuration;
import freemarker.template.Template;
import freemarker.template.TemplateException;
import freemarker.template.TemplateExceptionHandler;
import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Compiles and renders templates with Apache FreeMarker (docs/templates.md says why FreeMarker). The HTML part
 * is rendered with the HTML output format, so every {@code ${...}} is escaped unless the template says
 * {@code ?no_esc}; subject and text are plain text. An undefined variable is an error, never an empty string.
 * Templates read data only: {@code ?new} may create no class and {@code ?api} is off.
 *
 * <p>A compiled template is kept per name, version and locale, the {@value #CACHED} most recently used, so a mail
 * merge compiles each part once; the kept one is used only while its source is the source the caller read from
 * the database now, so a template deleted and stored again on another server is never rendered from an old
 * compilation here.
 *
 * <p>Every render of one mail is held to {@link RenderLimits} by a {@link RenderWatch}: a time limit and a cap on
 * the heap it allocates. A render that passes a limit, nests macro calls until the stack overflows, or runs out
 * of memory ends in a {@link Failure} (a {@code 400}), never in an {@link Error} that reaches the container.
 */
@ApplicationScoped
public class TemplateEngine {

    /** Compiled locales kept. */
    static final int CACHED = 256;

    @Resource
    ManagedScheduledExecutorService scheduler; // runs RenderWatch's sweep

    private RenderWatch watch;

    private final Configuration plain = configuration(PlainTextOutputFormat.INSTANCE);
    private final Configuration html = configuration(HTMLOutputFormat.INSTANCE);
    private final Map<String, Cached> cache = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
            return size() > CACHED;
        }
    };

    /** A kept compilation and the source it was compiled from. */
    private record Cached(TemplateText source, Compiled compiled) {
    }

    @PostConstruct
    void start() {
        watch = new RenderWatch(scheduler, RenderLimits.read(Settings.fromConfig(TemplateEngine.class)));
    }

    @PreDestroy
    void stop() {
        watch.stop();
    }

    /**
     * @param limits    what one mail's render may cost
     * @param scheduler runs the watch's sweep
     * @return an engine outside a container (tests, benchmarks)
     */
    public static TemplateEngine of(RenderLimits limits, ScheduledExecutorService scheduler) {
        TemplateEngine engine = new TemplateEngine();
        engine.watch = new RenderWatch(scheduler, limits);
        return engine;
    }

    /** @return the limits every render is held to */
    public RenderLimits limits() {
        return watch.limits();
    }

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
        private final boolean limit;

        Failure(String part, String variable, int line, String message) {
            this(part, variable, line, message, false);
        }

        Failure(String part, String variable, int line, String message, boolean limit) {
            super(message);
            this.part = part;
            this.variable = variable;
            this.line = line;
            this.limit = limit;
        }

        /**
         * @return true when the render was stopped by a limit whatever its variables: the time limit, the memory
         *         cap, the output length, a stack overflow of nested calls, or the heap running out
         */
        public boolean limit() {
            return limit;
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
     * @return them compiled, from the cache when that version's locale was compiled before from the same source
     * @throws Failure when a part does not parse
     */
    public Compiled compiled(String name, int version, TemplateText source) throws Failure {
        String key = name + '\n' + version + '\n' + source.locale();
        synchronized (cache) {
            Cached known = cache.get(key);
            if (known != null && known.source().equals(source)) {
                if (known.source() != source) { // the next caller with these instances compares by identity
                    cache.put(key, new Cached(source, known.compiled()));
                }
                return known.compiled();
            }
        }
        Compiled compiled = compile(name, source);
        synchronized (cache) {
            cache.put(key, new Cached(source, compiled));
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
            Template template = new Template(name + ":" + part, source, configuration);
            _CoreAPI.addThreadInterruptedChecks(template); // where RenderWatch can stop it: every loop and macro
            return template;
        } catch (StackOverflowError e) {
            throw new Failure(part, null, 0, "does not parse: nested too deeply", true);
        } catch (ParseException e) {
            throw new Failure(part, null, e.getLineNumber(), "does not parse: line " + e.getLineNumber() + ", column "
                    + e.getColumnNumber() + ": " + firstLine(e.getEditorMessage()));
        } catch (IOException e) {
            throw new Failure(part, null, 0, "does not parse: " + firstLine(e.getMessage()));
        }
    }

    /**
     * Renders one mail's parts, held together to {@link #limits()}.
     *
     * @param template  a locale's compiled parts
     * @param variables the variables, checked by {@link TemplateVariables}
     * @return the rendered subject, text and HTML (null where the template has no such part), with the locale
     * @throws Failure naming the part and the expression at fault: an undefined variable, a variable of the wrong
     *                 type for its use, output longer than the part may be, or a limit passed
     *                 ({@link Failure#limit()})
     */
    public TemplateText render(Compiled template, Map<String, Object> variables) throws Failure {
        Locale locale = Locale.forLanguageTag(template.locale());
        try (RenderWatch.Watch watching = watch.start()) {
            return new TemplateText(template.locale(),
                    render(template.subject(), "subject", variables, locale, MailLimits.SUBJECT_CHARS, watching),
                    render(template.text(), "text", variables, locale, MailLimits.BODY_CHARS, watching),
                    render(template.html(), "html", variables, locale, MailLimits.BODY_CHARS, watching));
        }
    }

    /**
     * The trial render of a template about to be stored: each part rendered once with no variables given, every
     * variable reading as empty (an empty string, 0, false, an empty list and an empty hash at once,
     * {@link TrialModel}), held to {@link #limits()}. A fault that depends on the variables (a type a real
     * variable would have) is no fault here; a limit passed with no variables at all would be passed by every mail.
     *
     * @param template a locale's compiled parts
     * @throws Failure with {@link Failure#limit()} true, naming the part that passed a limit
     */
    public void trial(Compiled template) throws Failure {
        Locale locale = Locale.forLanguageTag(template.locale());
        Template[] parts = {template.subject(), template.text(), template.html()};
        String[] names = {"subject", "text", "html"};
        for (int i = 0; i < parts.length; i++) {
            try (RenderWatch.Watch watching = watch.start()) {
                render(parts[i], names[i], TrialModel.ROOT, locale, i == 0 ? MailLimits.SUBJECT_CHARS : MailLimits.BODY_CHARS,
                        watching);
            } catch (Failure f) {
                if (f.limit()) {
                    throw f;
                }
            }
        }
    }

    private static String render(Template template, String part, Object variables, Locale locale, int maxChars,
                                 RenderWatch.Watch watching) throws Failure {
        if (template == null) {
            return null;
        }
        CappedWriter out = new CappedWriter(maxChars);
        Throwable fault;
        try {
            var environment = template.createProcessingEnvironment(variables, out);
            environment.setLocale(locale);
            environment.process();
            fault = null;
        } catch (StackOverflowError e) {
            throw new Failure(part, null, 0, "nests macro or function calls too deeply (the stack overflowed)", true);
        } catch (OutOfMemoryError e) {
            throw new Failure(part, null, 0, "needed more memory than the server has to render", true);
        } catch (Exception | Error e) { // judged below, once the watch has said whether it stopped the render
            fault = e;
        }
        String stopped = watching.outcome();
        if (stopped != null) {
            throw new Failure(part, null, 0, stopped, true);
        }
        if (fault == null) {
            return out.toString();
        }
        if (fault instanceof InvalidReferenceException e) {
            throw new Failure(part, e.getBlamedExpressionString(), line(e), "is not defined"
                    + (e.getBlamedExpressionString() == null ? ": " + firstLine(e.getMessageWithoutStackTop()) : ""));
        }
        if (fault instanceof TemplateException e) {
            throw new Failure(part, e.getBlamedExpressionString(), line(e),
                    "cannot be rendered: " + firstLine(e.getMessageWithoutStackTop()));
        }
        if (fault instanceof CappedWriter.Full) {
            throw new Failure(part, null, 0, "renders longer than " + maxChars + " characters", true);
        }
        throw new Failure(part, null, 0, "cannot be rendered: " + firstLine(fault.getClass().getSimpleName() + ": "
                + fault.getMessage()));
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
