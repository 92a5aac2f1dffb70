package dev.mailqueue.settings.control;

import org.eclipse.microprofile.config.ConfigProvider;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The one reader of the queue's settings: each value by its name from MicroProfile Config (in tests, a map),
 * stripped, parsed and checked against its range, every complaint an {@link IllegalStateException} that
 * names the setting and the value it got, so that a typo stops the application at start instead of running
 * silently.
 * <p>
 * No default is written here. A setting's default lives once, in {@code META-INF/microprofile-config.properties}
 * of the EJB module (or, for a server's own settings, Liberty's {@code server.xml}); a required setting
 * ({@link #text}, {@link #whole(String, long, long)}, ...) that has none is a fault of the build. The
 * {@code ...(name, ..., absent)} forms are for settings whose names are made at run time (per SMTP account,
 * per webhook endpoint), which no properties file can list; the value they fall back to is the caller's rule,
 * named in its Javadoc.
 */
public final class Settings {

    private final Function<String, Optional<String>> source;

    private Settings(Function<String, Optional<String>> source) {
        this.source = source;
    }

    /**
     * @param source a setting's raw value by name, empty when it is not set
     * @return a reader of those values
     */
    public static Settings of(Function<String, Optional<String>> source) {
        return new Settings(source);
    }

    /**
     * @param values raw values by name; a name not in the map is not set
     * @return a reader of those values (for tests)
     */
    public static Settings of(Map<String, String> values) {
        return new Settings(name -> Optional.ofNullable(values.get(name)));
    }

    /**
     * @param owner a class of the application, whose class loader picks the application's configuration
     * @return a reader of the application's MicroProfile Config (properties file, server variables, the
     *         environment, system properties)
     */
    public static Settings fromConfig(Class<?> owner) {
        var config = ConfigProvider.getConfig(owner.getClassLoader());
        return new Settings(name -> config.getOptionalValue(name, String.class));
    }

    /**
     * @param name a setting
     * @return its value stripped of surrounding white space; empty when it is not set or blank
     */
    public Optional<String> optional(String name) {
        return source.apply(name).map(String::strip).filter(v -> !v.isEmpty());
    }

    /**
     * @param name a setting that must be set
     * @return its value stripped of surrounding white space (empty only when a source sets it so)
     * @throws IllegalStateException naming it when it is not set
     */
    public String text(String name) {
        return source.apply(name).map(String::strip).orElseThrow(() -> new IllegalStateException("configuration "
                + name + " is not set (its default is in META-INF/microprofile-config.properties of the EJB module)"));
    }

    /**
     * @param name a setting that must be set
     * @param min  the least value allowed
     * @param max  the greatest value allowed ({@link Long#MAX_VALUE}: no bound)
     * @return its value, a whole number from {@code min} to {@code max}
     * @throws IllegalStateException naming it when it is not set, not a whole number or out of range
     */
    public long whole(String name, long min, long max) {
        return parseWhole(name, text(name), min, max);
    }

    /**
     * @param name   a setting that may be unset
     * @param min    the least value allowed
     * @param max    the greatest value allowed ({@link Long#MAX_VALUE}: no bound)
     * @param absent the value when it is not set or blank
     * @return its value, a whole number from {@code min} to {@code max}, or {@code absent}
     * @throws IllegalStateException naming it when it is set to something that is not a whole number in range
     */
    public long whole(String name, long min, long max, long absent) {
        Optional<String> value = optional(name);
        return value.isEmpty() ? absent : parseWhole(name, value.get(), min, max);
    }

    private static long parseWhole(String name, String value, long min, long max) {
        long parsed;
        try {
            parsed = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("configuration " + name + " must be a whole number, was '" + value + "'", e);
        }
        if (parsed < min || parsed > max) {
            throw new IllegalStateException("configuration " + name + " must be within [" + min + ", "
                    + (max == Long.MAX_VALUE ? "..." : Long.toString(max)) + "], was " + value);
        }
        return parsed;
    }

    /**
     * @param name a setting that must be set
     * @return its value, a number from 0 to 1
     * @throws IllegalStateException naming it when it is not set, not a number or out of range
     */
    public double fraction(String name) {
        String value = text(name);
        try {
            double parsed = Double.parseDouble(value);
            if (parsed >= 0 && parsed <= 1) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException("configuration " + name + " must be a number within [0, 1], was '" + value + "'");
    }

    /**
     * @param name a setting that must be set
     * @return its value, {@code true} or {@code false} in any case
     * @throws IllegalStateException naming it when it is not set or another word
     */
    public boolean bool(String name) {
        String value = text(name).toLowerCase(Locale.ROOT);
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new IllegalStateException("configuration " + name + " must be true or false, was '" + value + "'");
    }

    /**
     * @param name a setting that must be set
     * @param type the enumeration whose constant it names, in any case, with {@code -} for {@code _}
     * @param <E>  that enumeration
     * @return the constant
     * @throws IllegalStateException naming it and the constants when it is not set or names none of them
     */
    public <E extends Enum<E>> E choice(String name, Class<E> type) {
        String value = text(name);
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(value.replace('-', '_'))) {
                return constant;
            }
        }
        throw new IllegalStateException("configuration " + name + " must be one of "
                + Arrays.toString(type.getEnumConstants()) + ", was '" + value + "'");
    }

    /**
     * @param name a setting that holds a comma-separated list
     * @return its items, stripped, blank ones left out, in their order; empty when it is not set
     */
    public List<String> list(String name) {
        return optional(name).map(Settings::items).orElse(List.of());
    }

    /**
     * @param value a comma-separated list
     * @return its items, stripped, blank ones left out, in their order
     */
    public static List<String> items(String value) {
        return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** The host names of a URL that count as this machine: plain http to them never crosses a network. */
    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    /**
     * The one check of the URLs the queue sends secrets or mail to (token endpoints, mail APIs).
     *
     * @param name  the setting, named in the error
     * @param value its value
     * @param why   why plain http must not leave the machine, the end of the error, e.g. "the request carries the
     *              client's secret"
     * @return the URL: {@code https} with a host, or {@code http} to a loopback host ({@code localhost},
     *         {@code 127.0.0.1}, {@code [::1]}: a local emulator or tunnel); no user info, no fragment
     * @throws IllegalStateException naming the setting when it is malformed or plain http off loopback
     */
    public static URI secureUrl(String name, String value, String why) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(name + ": not a URL (" + e.getReason() + ")", e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean loopback = uri.getHost() != null && LOOPBACK.contains(uri.getHost().toLowerCase(Locale.ROOT));
        if (!(scheme.equals("https") || scheme.equals("http") && loopback) || uri.getHost() == null
                || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw new IllegalStateException(name + ": '" + value + "' must be an https URL without user or fragment"
                    + " (http only on a loopback host): " + why);
        }
        return uri;
    }
}
