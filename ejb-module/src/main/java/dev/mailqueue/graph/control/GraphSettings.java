package dev.mailqueue.graph.control;

import dev.mailqueue.settings.control.Settings;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The settings of one account that sends through Microsoft Graph ({@code mailqueue.account.<name>.relay=graph}),
 * read from MicroProfile Config:
 * <ul>
 *   <li>{@code mailqueue.account.<name>.graph.mailbox}: the user the mail is sent as, its user principal name
 *       ({@code sender@contoso.com}) or object id (a GUID); required. The account's OAuth2 login
 *       ({@code login=oauth2}, scope {@code https://graph.microsoft.com/.default}, an Entra application with the
 *       application permission {@code Mail.Send}) gives the token.</li>
 *   <li>{@code mailqueue.account.<name>.graph.endpoint}: the Graph service root, default
 *       {@code https://graph.microsoft.com} (national clouds: e.g. {@code https://graph.microsoft.us}); {@code https},
 *       or {@code http} to a loopback host.</li>
 *   <li>{@code mailqueue.graph.timeout.ms}: the longest wait for Graph's answer, 1,000 to 600,000 ms, default
 *       30,000; a request written and not answered in time leaves its mail in doubt.</li>
 *   <li>{@code mailqueue.graph.connect-timeout.ms}: the longest wait to connect, 100 to 60,000 ms, default 5,000.</li>
 * </ul>
 *
 * @param account        the account's name
 * @param mailbox        the user principal name or object id of the mailbox that sends
 * @param endpoint       the service root, without a trailing slash
 * @param timeout        how long one request may wait for its answer
 * @param connectTimeout how long connecting may take
 */
public record GraphSettings(String account, String mailbox, URI endpoint, Duration timeout, Duration connectTimeout) {

    /** Microsoft Graph's global service root. */
    public static final String GLOBAL = "https://graph.microsoft.com";
    /** The setting of the wait for an answer. */
    public static final String TIMEOUT = "mailqueue.graph.timeout.ms";
    /** The setting of the wait for a connection. */
    public static final String CONNECT_TIMEOUT = "mailqueue.graph.connect-timeout.ms";

    /** A user principal name (an address, 1 to 113 characters before the at sign: Entra's limit) or an object id. */
    private static final Pattern MAILBOX = Pattern.compile(
            "[A-Za-z0-9._%+'-]{1,113}@[A-Za-z0-9.-]{1,255}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /**
     * @param account  an account whose relay is {@code graph}
     * @param settings where the settings are read
     * @return the account's Graph settings
     * @throws IllegalStateException naming the setting at fault: no or a malformed mailbox, an endpoint that is no
     *                               https URL (or http to a loopback host) or has a query, a timeout out of range
     */
    public static GraphSettings parse(String account, Settings settings) {
        String prefix = "mailqueue.account." + account + ".graph.";
        String mailbox = settings.optional(prefix + "mailbox").orElseThrow(() -> new IllegalStateException(prefix
                + "mailbox is not set: account " + account + " sends through Microsoft Graph as a mailbox, e.g."
                + " sender@contoso.com"));
        if (!MAILBOX.matcher(mailbox).matches()) {
            throw new IllegalStateException(prefix + "mailbox: '" + mailbox
                    + "' is neither a user principal name (sender@contoso.com) nor an object id");
        }
        URI endpoint = Settings.secureUrl(prefix + "endpoint", settings.optional(prefix + "endpoint").orElse(GLOBAL),
                "the requests carry the mail and the access token");
        if (endpoint.getRawQuery() != null) {
            throw new IllegalStateException(prefix + "endpoint: '" + endpoint + "' must have no query");
        }
        String root = endpoint.toString().replaceAll("/+$", "");
        return new GraphSettings(account, mailbox, URI.create(root),
                Duration.ofMillis(settings.whole(TIMEOUT, 1_000, 600_000, 30_000)),
                Duration.ofMillis(settings.whole(CONNECT_TIMEOUT, 100, 60_000, 5_000)));
    }

    /** @return the URL of the mailbox's {@code sendMail} action, v1.0 */
    public URI sendMail() {
        return URI.create(endpoint + "/v1.0/users/" + URLEncoder.encode(mailbox, StandardCharsets.UTF_8) + "/sendMail");
    }
}
