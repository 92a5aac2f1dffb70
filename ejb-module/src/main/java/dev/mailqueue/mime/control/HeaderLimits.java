package dev.mailqueue.mime.control;

import dev.mailqueue.settings.control.Settings;

/**
 * The caps on one raw message's header section, so that what a sender's header fields cost to parse and to
 * compose is bounded whatever their shape: a header section of many tiny fields ({@code a:} lines) costs tens of
 * bytes of heap for each of its bytes once parsed into fields, where the body costs about one. Read from
 * MicroProfile Config; defaults in {@code META-INF/microprofile-config.properties}:
 * <ul>
 *   <li>{@code mailqueue.raw.max-header-fields}: header fields of one message, 16 to 10,000 (300: a message
 *       that passed 50 relays, RFC 5321 §6.3's usual hop limit, with its own fields, DKIM and ARC sets,
 *       has far fewer);</li>
 *   <li>{@code mailqueue.raw.max-header-bytes}: bytes of the header section with its line ends, 1,024 to
 *       1,048,576 (102,400: Postfix's {@code header_size_limit}).</li>
 * </ul>
 *
 * @param maxFields header fields of one message, 16 to 10,000
 * @param maxBytes  bytes of one header section, 1,024 to 1,048,576
 */
public record HeaderLimits(int maxFields, int maxBytes) {

    /** The settings' names. */
    public static final String MAX_FIELDS = "mailqueue.raw.max-header-fields";
    /** The settings' names. */
    public static final String MAX_BYTES = "mailqueue.raw.max-header-bytes";

    /**
     * The largest limits the settings allow: what the claimer checks a stored message against when it sends it, so
     * that a message queued under larger settings than today's still goes out, and no stored message costs more
     * to compose than these allow.
     */
    public static final HeaderLimits CEILING = new HeaderLimits(10_000, 1_048_576);

    /** The shipped defaults, for code outside a container (tests, benchmarks). */
    public static final HeaderLimits DEFAULTS = new HeaderLimits(300, 102_400);

    /**
     * @param settings where the settings are read
     * @return the limits
     * @throws IllegalStateException naming a setting that is missing or out of range
     */
    public static HeaderLimits read(Settings settings) {
        return new HeaderLimits((int) settings.whole(MAX_FIELDS, 16, CEILING.maxFields()),
                (int) settings.whole(MAX_BYTES, 1_024, CEILING.maxBytes()));
    }
}
