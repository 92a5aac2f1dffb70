package dev.mailqueue.submission.control;

import dev.mailqueue.api.MailLimits;
import dev.mailqueue.settings.control.Settings;

import java.net.URI;
import java.util.Optional;

/**
 * The settings of SMTP submission into the queue (RFC 6409), read once through MicroProfile Config; defaults in
 * {@code META-INF/microprofile-config.properties}:
 * <ul>
 *   <li>{@code mailqueue.submission.enabled}: whether the listener runs (default false);</li>
 *   <li>{@code mailqueue.submission.port}: its TCP port, 1 to 65535 (587, RFC 6409 §3.1);</li>
 *   <li>{@code mailqueue.submission.bind-address}: the address it listens on (127.0.0.1: this host only;
 *       0.0.0.0 or :: listens on every address);</li>
 *   <li>{@code mailqueue.submission.api-url}: where it hands each message to the queue: this server's own HTTP
 *       endpoint, whose users, roles and allow-lists then apply unchanged (http://localhost:9080);</li>
 *   <li>{@code mailqueue.submission.keystore}, {@code .keystore-password}, {@code .keystore-type}: the key store of
 *       STARTTLS (a file; empty: no STARTTLS, and no AUTH but on loopback when that is allowed);</li>
 *   <li>{@code mailqueue.submission.auth-on-loopback-without-tls}: whether a client on a loopback address may
 *       AUTH without STARTTLS (false);</li>
 *   <li>{@code mailqueue.submission.max-connections} (100), {@code .max-connections-per-address} (10),
 *       {@code .max-messages-per-connection} (100), {@code .max-recipients} (100 to 1,000; RFC 5321 §4.5.3.1.8
 *       asks for at least 100), {@code .max-message-bytes} (the largest message, bytes; also the SIZE it
 *       announces, RFC 1870), {@code .idle-timeout.ms} (300,000: RFC 5321 §4.5.3.2.7's five minutes).</li>
 * </ul>
 * A bad value stops the application at start with an {@link IllegalStateException} naming the setting.
 *
 * @param enabled                 whether the listener runs
 * @param port                    its port
 * @param bindAddress             the address it listens on
 * @param apiUrl                  the queue's HTTP base URL, without a trailing slash
 * @param keystore                the STARTTLS key store file, or empty for no STARTTLS
 * @param keystorePassword        its password
 * @param keystoreType            its type, e.g. PKCS12
 * @param authOnLoopbackWithoutTls whether AUTH is taken without TLS from a loopback address
 * @param maxConnections          connections at once
 * @param maxConnectionsPerAddress connections at once from one client address
 * @param maxMessagesPerConnection messages in one connection
 * @param maxRecipients           recipients of one message
 * @param maxMessageBytes         bytes of one message
 * @param idleTimeoutMillis       how long a connection may say nothing, ms
 */
public record SubmissionSettings(boolean enabled, int port, String bindAddress, String apiUrl,
                                 Optional<String> keystore, String keystorePassword, String keystoreType,
                                 boolean authOnLoopbackWithoutTls, int maxConnections, int maxConnectionsPerAddress,
                                 int maxMessagesPerConnection, int maxRecipients, int maxMessageBytes,
                                 int idleTimeoutMillis) {

    /** The settings' prefix. */
    public static final String PREFIX = "mailqueue.submission.";

    /**
     * @param settings where they are read
     * @return the settings
     * @throws IllegalStateException naming a setting whose value is missing or out of range
     */
    public static SubmissionSettings read(Settings settings) {
        String api = settings.text(PREFIX + "api-url").strip();
        try {
            URI uri = URI.create(api);
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("not an http or https URL");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(PREFIX + "api-url must be the server's http(s) base URL: " + e.getMessage());
        }
        return new SubmissionSettings(settings.bool(PREFIX + "enabled"),
                (int) settings.whole(PREFIX + "port", 1, 65_535),
                settings.text(PREFIX + "bind-address"),
                api.endsWith("/") ? api.substring(0, api.length() - 1) : api,
                settings.optional(PREFIX + "keystore").map(String::strip).filter(s -> !s.isEmpty()),
                settings.optional(PREFIX + "keystore-password").orElse(""),
                settings.text(PREFIX + "keystore-type"),
                settings.bool(PREFIX + "auth-on-loopback-without-tls"),
                (int) settings.whole(PREFIX + "max-connections", 1, 10_000),
                (int) settings.whole(PREFIX + "max-connections-per-address", 1, 10_000),
                (int) settings.whole(PREFIX + "max-messages-per-connection", 1, 100_000),
                (int) settings.whole(PREFIX + "max-recipients", MailLimits.RECIPIENTS, 1_000),
                (int) settings.whole(PREFIX + "max-message-bytes", 1_024, Integer.MAX_VALUE),
                (int) settings.whole(PREFIX + "idle-timeout.ms", 1_000, 3_600_000));
    }
}
