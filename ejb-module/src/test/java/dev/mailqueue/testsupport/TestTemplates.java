package dev.mailqueue.testsupport;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.template.control.RenderLimits;
import dev.mailqueue.template.control.TemplateEngine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Template engines outside a container, with the shipped render limits or others. */
public final class TestTemplates {

    /** Runs the render watches' sweeps of every engine made here, on one daemon thread. */
    private static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "render-watch");
        thread.setDaemon(true);
        return thread;
    });

    private TestTemplates() {
    }

    /**
     * @param overrides pairs of setting name and value laid over the shipped defaults
     * @return the render limits a server with those settings has
     */
    public static RenderLimits limits(String... overrides) {
        Map<String, String> values = new HashMap<>();
        Properties properties = new Properties();
        try (InputStream in = TemplateEngine.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        properties.forEach((k, v) -> values.put((String) k, (String) v));
        for (int i = 0; i < overrides.length; i += 2) {
            values.put(overrides[i], overrides[i + 1]);
        }
        return RenderLimits.read(Settings.of(values));
    }

    /**
     * @param overrides pairs of setting name and value laid over the shipped defaults
     * @return an engine held to the render limits a server with those settings has
     */
    public static TemplateEngine engine(String... overrides) {
        return TemplateEngine.of(limits(overrides), SCHEDULER);
    }
}
