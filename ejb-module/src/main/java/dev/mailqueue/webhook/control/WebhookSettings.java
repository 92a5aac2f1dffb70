package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailLimits;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import dev.mailqueue.settings.control.Settings;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The webhook endpoints and how they are served, read once through MicroProfile Config (server variables,
 * environment variables such as {@code MAILQUEUE_WEBHOOK_CRM_SECRET}, or system properties); defaults in
 * the EJB module's {@code META-INF/microprofile-config.properties}. Endpoints come from server
 * configuration only, never from a mail request:
 * <ul>
 *   <li>{@code mailqueue.webhooks}: endpoint names, comma separated, each 1 to 64 of A-Z a-z 0-9 _ -;
 *       default none;</li>
 *   <li>{@code mailqueue.webhook.<name>.url}: where its events are POSTed, an absolute http or https URL;</li>
 *   <li>{@code mailqueue.webhook.<name>.secret}: its signing secret, {@code whsec_} and 24 to 64 bytes in
 *       base64 ({@link WebhookSignature});</li>
 *   <li>{@code mailqueue.webhook.<name>.events}: event types it wants ({@link EventType#wireName()}), comma
 *       separated; default all;</li>
 *   <li>{@code mailqueue.webhook.<name>.campaigns}: campaigns whose events it wants; default every mail's.</li>
 * </ul>
 * A missing or bad value stops the application at start with an {@link IllegalStateException} naming the
 * setting, never showing a secret.
 */
@ApplicationScoped
public class WebhookSettings {

    /** The setting that lists the endpoints. */
    public static final String ENDPOINTS = "mailqueue.webhooks";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private List<WebhookEndpoint> endpoints;
    private long intervalMillis;
    private long timeoutMillis;
    private long backoffMinMillis;
    private long backoffMaxMillis;
    private long giveUpMillis;
    private long disableAfterMillis;
    private int batchSize;
    private boolean allowPrivateAddresses;

    @PostConstruct
    void read() {
        read(Settings.fromConfig(WebhookSettings.class));
    }

    /**
     * @param setting the value of a named setting, empty when unset; in tests a map
     * @return the settings
     * @throws IllegalStateException naming the setting at fault
     */
    public static WebhookSettings of(Function<String, Optional<String>> setting) {
        WebhookSettings settings = new WebhookSettings();
        settings.read(Settings.of(setting));
        return settings;
    }

    private void read(Settings setting) {
        intervalMillis = setting.whole("mailqueue.webhook.interval.ms", 100, 3_600_000);
        timeoutMillis = setting.whole("mailqueue.webhook.timeout.ms", 100, 300_000);
        backoffMinMillis = setting.whole("mailqueue.webhook.backoff.min.ms", 100, Long.MAX_VALUE);
        backoffMaxMillis = setting.whole("mailqueue.webhook.backoff.max.ms", backoffMinMillis, Long.MAX_VALUE);
        giveUpMillis = setting.whole("mailqueue.webhook.give-up.ms", 1_000, Long.MAX_VALUE);
        disableAfterMillis = setting.whole("mailqueue.webhook.disable-after.ms", 1_000, Long.MAX_VALUE);
        batchSize = (int) setting.whole("mailqueue.webhook.batch-size", 1, 1_000);
        allowPrivateAddresses = setting.bool("mailqueue.webhook.allow-private-addresses");
        endpoints = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (String name : setting.list(ENDPOINTS)) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalStateException(ENDPOINTS + ": endpoint name '" + name
                        + "' must be 1 to 64 characters of A-Z a-z 0-9 _ -");
            }
            if (!names.add(name)) {
                throw new IllegalStateException(ENDPOINTS + ": endpoint '" + name + "' is listed twice");
            }
            endpoints.add(endpoint(name, setting));
        }
    }

    private static WebhookEndpoint endpoint(String name, Settings setting) {
        String prefix = "mailqueue.webhook." + name + ".";
        String url = setting.optional(prefix + "url")
                .orElseThrow(() -> new IllegalStateException(prefix + "url is required for endpoint " + name));
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(prefix + "url is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null
                || uri.getUserInfo() != null || uri.getFragment() != null) {
            throw new IllegalStateException(prefix + "url must be an absolute http or https URL with a host, without"
                    + " user information or fragment: " + url);
        }
        String secret = setting.optional(prefix + "secret")
                .orElseThrow(() -> new IllegalStateException(prefix + "secret is required for endpoint " + name
                        + ": " + WebhookSignature.SECRET_PREFIX + " and 24 to 64 random bytes in base64"));
        byte[] key;
        try {
            key = WebhookSignature.key(secret);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(prefix + "secret " + e.getMessage());
        }
        Set<EventType> events = new LinkedHashSet<>();
        for (String type : setting.list(prefix + "events")) {
            try {
                events.add(EventType.of(type));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(prefix + "events: '" + type + "' is not an event type; the types are "
                        + java.util.Arrays.stream(EventType.values()).map(EventType::wireName).toList());
            }
        }
        Set<String> campaigns = new LinkedHashSet<>();
        for (String campaign : setting.list(prefix + "campaigns")) {
            if (!campaign.matches(MailLimits.CAMPAIGN_NAME)) {
                throw new IllegalStateException(prefix + "campaigns: '" + campaign + "' is not a campaign name");
            }
            campaigns.add(campaign);
        }
        return new WebhookEndpoint(name, uri, key, events, campaigns);
    }

    /** @return the endpoints, in the order {@value #ENDPOINTS} lists them; empty when none is configured */
    public List<WebhookEndpoint> endpoints() {
        return List.copyOf(endpoints);
    }

    /**
     * @param type     an event's type
     * @param campaign its mail's campaign, or null
     * @return the names of the endpoints that want it
     */
    public List<String> endpointsFor(EventType type, String campaign) {
        return endpoints.stream().filter(e -> e.wants(type, campaign)).map(WebhookEndpoint::name).toList();
    }

    /** @return how often a server looks for events to deliver, ms, 100 to 3,600,000 ({@code mailqueue.webhook.interval.ms}) */
    public long intervalMillis() {
        return intervalMillis;
    }

    /**
     * @return the deadline of one webhook request as a whole (connect, TLS, send, response headers and up to
     *         {@value WebhookClient#MAX_RESPONSE_BODY_BYTES} bytes of body), ms, 100 to 300,000 ({@code mailqueue.webhook.timeout.ms});
     *         also how long a pass waits for the endpoints' rounds it started
     */
    public long timeoutMillis() {
        return timeoutMillis;
    }

    /**
     * @param attempts tries so far, 1 or more
     * @return the wait before the next try, ms: the minimum ({@code mailqueue.webhook.backoff.min.ms}) doubled per try, at most the
     *         maximum ({@code mailqueue.webhook.backoff.max.ms})
     */
    public long backoffMillis(int attempts) {
        int doublings = Math.min(attempts - 1, 40);
        long wait = backoffMinMillis << doublings;
        return wait <= 0 || wait > backoffMaxMillis ? backoffMaxMillis : wait;
    }

    /** @return how long after an event was published its delivery is given up (FAILED), ms ({@code mailqueue.webhook.give-up.ms}) */
    public long giveUpMillis() {
        return giveUpMillis;
    }

    /** @return how long an endpoint may fail without a success before it is disabled, ms ({@code mailqueue.webhook.disable-after.ms}) */
    public long disableAfterMillis() {
        return disableAfterMillis;
    }

    /** @return most deliveries per endpoint and pass, 1 to 1,000 ({@code mailqueue.webhook.batch-size}) */
    public int batchSize() {
        return batchSize;
    }

    /**
     * @return true when endpoints may be on loopback, private, link-local or other addresses that are not
     *         globally reachable ({@code mailqueue.webhook.allow-private-addresses}; when false such an
     *         address is refused at every new connection, see
     *         {@link PublicAddresses}); either way a connection goes to the address its lookup answered
     *         ({@link PinnedResolver})
     */
    public boolean allowPrivateAddresses() {
        return allowPrivateAddresses;
    }
}
