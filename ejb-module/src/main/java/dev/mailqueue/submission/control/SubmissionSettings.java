package dev.mailqueue.submission.control;

import dev.mailqueue.api.MailLimits;
import dev.mailqueue.settings.control.Settings;

import java.net.URI;
import java.util.Optional;

/**
 * The settings of SMTP submission into the queue (RFC 6409), read once through MicroProfile Config; defaults in
 * {@code META-INF/microprofile-config.properties}. Every range is chosen so that no sum or product the listener
 * computes from a setting can overflow:
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
 *       AUTH without STARTTLS (false); AUTH is never offered in clear to any other client;</li>
 *   <li>{@code .max-connections}: connections served at once, 1 to 10,000 (100); past it a client is answered
 *       {@code 421 4.3.2} and closed;</li>
 *   <li>{@code .max-connections-per-address}: connections at once from one client address, 1 to 10,000 (10);</li>
 *   <li>{@code .max-messages-per-connection}: 1 to 100,000 (100);</li>
 *   <li>{@code .max-recipients}: recipients of one message, 100 to 1,000 (100; RFC 5321 §4.5.3.1.8 asks for at
 *       least 100);</li>
 *   <li>{@code .max-message-bytes}: the largest message, bytes, 1,024 to {@value #MAX_MESSAGE_BYTES} (64 MiB)
 *       (16,777,216); also the SIZE it announces (RFC 1870);</li>
 *   <li>{@code .idle-timeout.ms}: how long the client may be silent within a command, ms, 1,000 to 3,600,000
 *       (300,000: RFC 5321 §4.5.3.2.7's five minutes);</li>
 *   <li>{@code .auth-deadline.ms}: how long after connecting a client may go without logging in, ms, 1,000 to
 *       3,600,000 (60,000), however busily it talks; then {@code 421 4.7.0} and close;</li>
 *   <li>{@code .session-deadline.ms}: the longest a connection lasts, logged in or not, ms, from
 *       {@code auth-deadline.ms} to 86,400,000 (1,800,000); then {@code 421 4.4.2} and close;</li>
 *   <li>{@code .max-auth-failures}: failed AUTH attempts on one connection, 1 to 100 (3); the last is followed by
 *       {@code 421 4.7.0} and the end of the connection;</li>
 *   <li>{@code .auth-failures-per-address}: failed logins from one client address within {@code auth-lockout.ms}
 *       that lock the address out, 1 to 10,000 (10);</li>
 *   <li>{@code .auth-lockout.ms}: how long such an address is locked out (and the window its failures are
 *       counted in), ms, 1,000 to 86,400,000 (900,000); while locked every AUTH from it is refused
 *       ({@code 454 4.7.0}) without checking the password;</li>
 *   <li>{@code .auth-lockout-delay.ms}: how long each AUTH of a locked-out address waits before that refusal,
 *       ms, 0 to 60,000 (5,000);</li>
 *   <li>{@code .tracked-addresses}: how many client addresses the lockout remembers at once, 16 to 1,000,000
 *       (10,000); past it the address seen least recently is forgotten.</li>
 * </ul>
 * A bad value stops the application at start with an {@link IllegalStateException} naming the setting.
 *
 * @param enabled                  whether the listener runs
 * @param port                     its port
 * @param bindAddress              the address it listens on
 * @param apiUrl                   the queue's HTTP base URL, without a trailing slash
 * @param keystore                 the STARTTLS key store file, or empty for no STARTTLS
 * @param keystorePassword         its password
 * @param keystoreType             its type, e.g. PKCS12
 * @param authOnLoopbackWithoutTls whether AUTH is taken without TLS from a loopback address
 * @param maxConnections           connections at once
 * @param maxConnectionsPerAddress connections at once from one client address
 * @param maxMessagesPerConnection messages in one connection
 * @param maxRecipients            recipients of one message
 * @param maxMessageBytes          bytes of one message
 * @param idleTimeoutMillis        how long a connection may say nothing, ms
 * @param authDeadlineMillis       how long a connection may go without a login, ms
 * @param sessionDeadlineMillis    how long a connection may last, ms
 * @param maxAuthFailures          failed AUTH attempts on one connection before it is closed
 * @param authFailuresPerAddress   failed logins from one address that lock it out
 * @param authLockoutMillis        how long a lockout lasts, ms
 * @param authLockoutDelayMillis   how long a locked-out AUTH waits before its refusal, ms
 * @param trackedAddresses         client addresses the lockout remembers at once
 */
public record SubmissionSettings(boolean enabled, int port, String bindAddress, String apiUrl,
                                 Optional<String> keystore, String keystorePassword, String keystoreType,
                                 boolean authOnLoopbackWithoutTls, int maxConnections, int maxConnectionsPerAddress,
                                 int maxMessagesPerConnection, int maxRecipients, int maxMessageBytes,
                                 int idleTimeoutMillis, long authDeadlineMillis, long sessionDeadlineMillis,
                                 int maxAuthFailures, int authFailuresPerAddress, long authLockoutMillis,
                                 long authLockoutDelayMillis, int trackedAddresses) {

    /** The settings' prefix. */
    public static final String PREFIX = "mailqueue.submission.";

    /**
     * The largest {@code max-message-bytes}: 64 MiB, four times the REST API's shipped request limit; far from
     * {@link Integer#MAX_VALUE}, so that {@code max + 1} and the bounded skip of an oversized DATA stay in range.
     */
    public static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

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
        long authDeadline = settings.whole(PREFIX + "auth-deadline.ms", 1_000, 3_600_000);
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
                (int) settings.whole(PREFIX + "max-message-bytes", 1_024, MAX_MESSAGE_BYTES),
                (int) settings.whole(PREFIX + "idle-timeout.ms", 1_000, 3_600_000),
                authDeadline,
                settings.whole(PREFIX + "session-deadline.ms", authDeadline, 86_400_000),
                (int) settings.whole(PREFIX + "max-auth-failures", 1, 100),
                (int) settings.whole(PREFIX + "auth-failures-per-address", 1, 10_000),
                settings.whole(PREFIX + "auth-lockout.ms", 1_000, 86_400_000),
                settings.whole(PREFIX + "auth-lockout-delay.ms", 0, 60_000),
                (int) settings.whole(PREFIX + "tracked-addresses", 16, 1_000_000));
    }
}
