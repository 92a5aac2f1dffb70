package dev.mailqueue.unsubscribe.control;

import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.queue.control.Suppressed;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import dev.mailqueue.settings.control.Settings;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one-click unsubscribe links of this installation (RFC 8058), from two settings that have no default:
 * <ul>
 *   <li>{@code mailqueue.unsubscribe.url}: the public address of the unsubscribe endpoint, as recipients'
 *       mailbox providers reach it, e.g. {@code https://mail.example.com/api/unsubscribe}; an absolute
 *       {@code https} or {@code http} URI without query or fragment (RFC 8058 §3.1 wants HTTPS for the
 *       one-click POST: plain {@code http} is for test machines). A link is this URL, a slash and a
 *       {@link UnsubscribeToken}.</li>
 *   <li>{@code mailqueue.unsubscribe.secret}: the key the tokens are signed with, at least
 *       {@value UnsubscribeToken#MIN_SECRET_CHARS} characters, the same on every server of the queue.
 *       Changing it voids every link already sent.</li>
 * </ul>
 * A link works for {@code mailqueue.unsubscribe.link-lifetime.days} (1 to 3,650) after its mail is
 * sent: the links are made when a mail is sent, never stored, and never shown to the sender.
 * Both set: a mail may ask for one-click unsubscribe; neither: it may not; one without the other stops
 * the application at start with an {@link IllegalStateException} naming the setting.
 */
@ApplicationScoped
public class UnsubscribeLinks {

    /** The setting that holds the endpoint's public URL. */
    public static final String URL = "mailqueue.unsubscribe.url";
    /** The setting that holds the signing secret. */
    public static final String SECRET = "mailqueue.unsubscribe.secret";

    /** The setting that holds how long a link works, days. */
    public static final String LIFETIME = "mailqueue.unsubscribe.link-lifetime.days";

    private String url;
    private String secret;
    private Duration lifetime;

    @PostConstruct
    void read() {
        read(Settings.fromConfig(UnsubscribeLinks.class));
    }

    /** Reads the settings when the application starts, so that a bad value stops it there. */
    void atStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        enabled();
    }

    /**
     * @param config a source of raw values by setting name (null when unset); in tests a map
     * @return the links those settings give
     * @throws IllegalStateException naming the setting when one is set without the other, the URL is not
     *                               an absolute http(s) URI without query and fragment, or the secret is
     *                               too short
     */
    public static UnsubscribeLinks of(Function<String, String> config) {
        UnsubscribeLinks links = new UnsubscribeLinks();
        links.read(Settings.of(name -> java.util.Optional.ofNullable(config.apply(name))));
        return links;
    }

    private void read(Settings config) {
        String u = config.optional(URL).orElse(null);
        String s = config.optional(SECRET).orElse(null);
        if (u == null && s == null) {
            return;
        }
        if (u == null || s == null) {
            throw new IllegalStateException("configuration " + (u == null ? URL : SECRET) + " is required when "
                    + (u == null ? SECRET : URL) + " is set (one-click unsubscribe needs both)");
        }
        if (s.length() < UnsubscribeToken.MIN_SECRET_CHARS) {
            throw new IllegalStateException("configuration " + SECRET + " must have at least "
                    + UnsubscribeToken.MIN_SECRET_CHARS + " characters");
        }
        try {
            URI uri = new URI(u);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!uri.isAbsolute() || !(scheme.equals("https") || scheme.equals("http")) || uri.getHost() == null
                    || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new IllegalStateException("configuration " + URL
                        + " must be an absolute https (or http) URL without query or fragment, was " + u);
            }
        } catch (URISyntaxException e) {
            throw new IllegalStateException("configuration " + URL + " is not a URL: " + e.getMessage(), e);
        }
        lifetime = Duration.ofDays(config.whole(LIFETIME, 1, 3650));
        url = u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
        secret = s;
    }

    /** @return true when both settings are set: mails may ask for one-click unsubscribe */
    public boolean enabled() {
        return url != null;
    }

    /**
     * @param list    the mail's list, matching {@link dev.mailqueue.api.MailLimits#LIST_NAME}
     * @param address its one recipient
     * @param now     when the mail is sent: the link works until then plus the lifetime
     * @return {@code List-Unsubscribe: <link>} (RFC 2369 §3.2) and
     *         {@code List-Unsubscribe-Post: List-Unsubscribe=One-Click} (RFC 8058 §3.1), in that order
     * @throws IllegalStateException when one-click unsubscribe is not configured
     */
    public List<NewMail.Header> headers(String list, String address, Instant now) {
        return List.of(new NewMail.Header(LIST_UNSUBSCRIBE, "<" + link(list, address, now) + ">"),
                new NewMail.Header(LIST_UNSUBSCRIBE_POST, "List-Unsubscribe=One-Click"));
    }

    /** The header field that carries the link (RFC 2369 §3.2). */
    public static final String LIST_UNSUBSCRIBE = "List-Unsubscribe";
    /** The header field that asks for the one-click POST (RFC 8058 §3.1). */
    public static final String LIST_UNSUBSCRIBE_POST = "List-Unsubscribe-Post";

    /**
     * @param name a header field's name
     * @return true for the two fields the queue writes for a mail of a list
     */
    public static boolean isUnsubscribeField(String name) {
        return LIST_UNSUBSCRIBE.equalsIgnoreCase(name) || LIST_UNSUBSCRIBE_POST.equalsIgnoreCase(name);
    }

    /**
     * @param now when the mail is sent
     * @return the link that unsubscribes {@code address} from {@code list}, working until {@code now} plus the
     *         lifetime
     * @throws IllegalStateException when one-click unsubscribe is not configured
     */
    public String link(String list, String address, Instant now) {
        if (!enabled()) {
            throw new IllegalStateException("one-click unsubscribe is not configured (" + URL + ", " + SECRET + ")");
        }
        return url + "/" + new UnsubscribeToken(list, Suppressed.normalise(address), now.plus(lifetime)).sign(secret);
    }

    /**
     * @param token the last path segment of a link, as received
     * @return the list and address it names; empty when it is not a token of this installation, has
     *         expired, or one-click unsubscribe is not configured
     */
    public Optional<UnsubscribeToken> verify(String token) {
        return enabled() ? UnsubscribeToken.verify(token, secret, Instant.now()) : Optional.empty();
    }
}
