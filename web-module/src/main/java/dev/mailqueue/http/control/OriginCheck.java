package dev.mailqueue.http.control;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a state-changing request may have come from another web site (cross-site request forgery):
 * a browser that still holds a user's Basic credentials sends them with a form or {@code fetch} that
 * another site makes it send. Browsers name the initiator in {@code Sec-Fetch-Site} (W3C Fetch
 * Metadata) and {@code Origin} (RFC 6454 §7, sent with every cross-origin request and every POST);
 * programs such as curl or a Java client send neither and are not affected.
 *
 * <p>A request is refused when {@code Sec-Fetch-Site} is present and neither {@code same-origin} nor
 * {@code none} (typed by the user), or when {@code Origin} is present and is neither the request's
 * own origin (scheme, host and port the request was addressed to) nor one of the configured allowed
 * origins. {@code Origin: null} (an opaque origin, e.g. a sandboxed frame) is refused.
 *
 * @param allowedOrigins extra origins to accept besides the request's own, as
 *                       {@code scheme://host[:port]} in lower case (e.g. a proxy's public address)
 */
public record OriginCheck(Set<String> allowedOrigins) {

    /** HTTP methods that change nothing (RFC 9110 §9.2.1), which are not checked. */
    public static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

    /**
     * @param commaSeparated the configured list, e.g. {@code https://mail.example.com, https://ops.example.com};
     *                       blank for none
     * @return the check with those origins, normalized
     * @throws IllegalArgumentException naming the entry that is not an origin
     */
    public static OriginCheck of(String commaSeparated) {
        Set<String> origins = new java.util.HashSet<>();
        if (commaSeparated != null) {
            for (String entry : commaSeparated.split(",")) {
                if (!entry.isBlank()) {
                    origins.add(normalize(entry.strip()).orElseThrow(() -> new IllegalArgumentException(
                            "not an origin (scheme://host[:port]): " + entry.strip())));
                }
            }
        }
        return new OriginCheck(Set.copyOf(origins));
    }

    /**
     * @param method        the request's method
     * @param origin        its {@code Origin} header, or null
     * @param fetchSite     its {@code Sec-Fetch-Site} header, or null
     * @param ownOrigin     {@code scheme://host[:port]} the request was addressed to
     * @return why the request is refused, or empty when it may proceed
     */
    public Optional<String> refusal(String method, String origin, String fetchSite, String ownOrigin) {
        if (SAFE_METHODS.contains(method.toUpperCase(Locale.ROOT))) {
            return Optional.empty();
        }
        if (fetchSite != null) {
            String site = fetchSite.strip().toLowerCase(Locale.ROOT);
            if (!site.equals("same-origin") && !site.equals("none")) {
                return Optional.of("Sec-Fetch-Site: a " + (site.equals("same-site") || site.equals("cross-site")
                        ? site : "foreign") + " request may not change anything here");
            }
        }
        if (origin != null) {
            Optional<String> normalized = normalize(origin.strip());
            Optional<String> own = normalize(ownOrigin);
            if (normalized.isEmpty() || !(normalized.equals(own) || allowedOrigins.contains(normalized.get()))) {
                return Optional.of("Origin: a request from another web site may not change anything here");
            }
        }
        return Optional.empty();
    }

    /**
     * @param origin {@code scheme://host[:port]}
     * @return it in lower case with the scheme's default port dropped, or empty when it is not such an
     *         origin ({@code null} included)
     */
    static Optional<String> normalize(String origin) {
        try {
            URI uri = new URI(origin);
            String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
            if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null
                    || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
                    || !(uri.getRawPath() == null || uri.getRawPath().isEmpty())) {
                return Optional.empty();
            }
            int port = uri.getPort();
            boolean defaultPort = port == -1 || scheme.equals("http") && port == 80 || scheme.equals("https") && port == 443;
            return Optional.of(scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port));
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
    }
}
