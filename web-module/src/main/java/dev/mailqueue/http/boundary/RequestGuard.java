package dev.mailqueue.http.boundary;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.budget.control.BodyBudget;
import dev.mailqueue.budget.control.InflightBudget;
import dev.mailqueue.http.control.BodyFraming;
import dev.mailqueue.http.control.LimitedInputStream;
import dev.mailqueue.http.control.MediaTypeHeader;
import dev.mailqueue.http.control.OriginCheck;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.http.control.Problem;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * What every request to the web module passes after authentication and before the REST resources:
 * <ol>
 *   <li>security headers on every answer: {@code X-Content-Type-Options: nosniff},
 *       {@code X-Frame-Options: DENY} and {@code Content-Security-Policy: frame-ancestors 'none'}
 *       (the console may not be framed, clickjacking), and for the console {@code /admin/} a policy
 *       that allows only its own scripts and styles;</li>
 *   <li>unambiguous body framing ({@link BodyFraming}: one Content-Length, not with
 *       Transfer-Encoding), else 400;</li>
 *   <li>the body limit {@code mailqueue.http.max-request-bytes}: a Content-Length
 *       above it is 413 before a byte is read, and a body is counted while it is read
 *       ({@link LimitedInputStream}), so a chunked one over the limit stops there with 413 too;</li>
 *   <li>for state-changing methods (all but GET, HEAD, OPTIONS, TRACE), the cross-site request
 *       forgery guard: a body must be {@code application/json} (415 otherwise, 400 for a
 *       Content-Type that does not parse), or {@code message/rfc822} for a raw mail posted to
 *       {@value #RAW_MAIL_PATH}; a web page can send neither to another site without
 *       that site's CORS consent (neither is a CORS-safelisted type, Fetch §2.2.2); and {@link OriginCheck} on {@code Origin} and
 *       {@code Sec-Fetch-Site} (403); not for the one-click unsubscribe links
 *       ({@value #UNSUBSCRIBE_PATH}), which a mailbox provider posts with a form body from its own
 *       servers, and which the signed token in the path authorises;</li>
 *   <li>the memory bound: a body is read and worked on only with a share of
 *       {@code mailqueue.http.max-inflight-bytes} (as shipped, room for two of the largest requests at a
 *       time) that fits its Content-Length (a chunked body counts as the body limit); a request waits
 *       up to {@code mailqueue.http.inflight-wait.ms} (ms) for room, then gets 503 with
 *       {@code Retry-After} ({@link BodyBudget}). The budget is the application's one {@link InflightBudget}, which
 *       SMTP submission's DATA draws on too.</li>
 * </ol>
 * Refusals are problem details naming the header at fault; nothing of the request reaches the queue.
 */
@WebFilter(filterName = "RequestGuard", urlPatterns = "/*")
public class RequestGuard extends HttpFilter {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = Logger.getLogger(RequestGuard.class.getName());

    /**
     * The one-click unsubscribe links (RFC 8058): posted by mailbox providers from their own servers, with
     * a form body and no Origin of ours, and authorised by the signed token alone, so exempt from the
     * cross-site guard; framing, size and memory limits apply as everywhere.
     */
    static final String UNSUBSCRIBE_PATH = "/api/unsubscribe/";

    /** Where a raw mail ({@code message/rfc822}) is posted: the only place that takes a body other than JSON. */
    static final String RAW_MAIL_PATH = "/api/mails";

    /** The console's policy: its own files only, no framing, no plugins, no forms posting elsewhere. */
    static final String CONSOLE_POLICY = "default-src 'self'; frame-ancestors 'none'; base-uri 'none';"
            + " form-action 'none'; object-src 'none'";

    long maxRequestBytes;
    long maxInflightBytes;
    long inflightWaitMillis;

    @Inject
    InflightBudget budget;

    private OriginCheck origins;

    /** Reads its settings (defaults: microprofile-config.properties of the EJB module) and stops the start on a bad one. */
    @PostConstruct
    void readConfiguration() {
        Settings settings = Settings.fromConfig(RequestGuard.class);
        maxRequestBytes = settings.whole("mailqueue.http.max-request-bytes", 1, Long.MAX_VALUE);
        maxInflightBytes = budget.maxBytes();
        inflightWaitMillis = budget.waitMillis();
        try {
            origins = OriginCheck.of(settings.optional("mailqueue.security.allowed-origins").orElse(""));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("configuration mailqueue.security.allowed-origins: " + e.getMessage(), e);
        }
    }

    /**
     * @param request a request
     * @return its path within the application as the container maps it: the servlet path and the path info, both
     *         decoded and without dot segments (Servlet 6.0 §3.5), e.g. {@code /api/mails}
     */
    static String path(HttpServletRequest request) {
        String info = request.getPathInfo();
        return info == null ? request.getServletPath() : request.getServletPath() + info;
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Frame-Options", "DENY");
        // Paths as the container resolved them (decoded, dot segments removed), not the request line's text: a
        // raw prefix test would exempt /api/unsubscribe/../mails, which the container serves as /api/mails.
        String path = path(request);
        boolean console = path.startsWith("/admin/");
        response.setHeader("Content-Security-Policy", console ? CONSOLE_POLICY : "frame-ancestors 'none'");

        boolean transferEncoded = request.getHeader("Transfer-Encoding") != null;
        BodyFraming framing;
        try {
            framing = BodyFraming.of(Collections.list(request.getHeaders("Content-Length")), transferEncoded,
                    BodyFraming.framed(request.getProtocol()));
        } catch (IllegalArgumentException e) {
            refuse(response, 400, "urn:mailqueue:problem:malformed-request", "Bad Request",
                    "The request's framing is ambiguous; nothing was done.",
                    new FieldError(transferEncoded ? "Transfer-Encoding" : "Content-Length", e.getMessage()));
            return;
        }
        if (framing.declared().isPresent() && framing.declared().getAsLong() > maxRequestBytes) {
            tooLarge(response);
            return;
        }
        boolean unsubscribe = path.startsWith(UNSUBSCRIBE_PATH);
        if (!OriginCheck.SAFE_METHODS.contains(request.getMethod()) && !unsubscribe) {
            Optional<String> crossSite = origins.refusal(request.getMethod(), request.getHeader("Origin"),
                    request.getHeader("Sec-Fetch-Site"), ownOrigin(request));
            if (crossSite.isPresent()) {
                LOG.warning(() -> "refused a cross-site " + request.getMethod() + " by " + LogText.escape(request.getRemoteUser())
                        + " to " + LogText.escape(request.getRequestURI()) + " from Origin "
                        + LogText.escape(request.getHeader("Origin")));
                String header = crossSite.get().startsWith("Origin") ? "Origin" : "Sec-Fetch-Site";
                refuse(response, 403, "urn:mailqueue:problem:cross-site-request", "Forbidden",
                        "A request from another web site may not change anything here; nothing was done.",
                        new FieldError(header, crossSite.get().substring(header.length() + 2)));
                return;
            }
            if (hasContentCoding(request)) {
                response.setHeader("Accept-Encoding", "identity"); // RFC 9110 §12.5.3: what a body may use here
                refuse(response, 415, "urn:mailqueue:problem:unsupported-media-type", "Unsupported Media Type",
                        "The request body must be sent without a content coding; nothing was done.",
                        new FieldError("Content-Encoding", "only identity is taken here (RFC 9110 8.4): send the body"
                                + " uncompressed"));
                return;
            }
            String contentType = request.getHeader("Content-Type");
            if (contentType != null || framing.hasBody()) {
                Optional<MediaTypeHeader> type = MediaTypeHeader.parse(contentType);
                if (type.isEmpty()) {
                    refuse(response, contentType == null ? 415 : 400, contentType == null
                                    ? "urn:mailqueue:problem:unsupported-media-type" : "urn:mailqueue:problem:malformed-request",
                            contentType == null ? "Unsupported Media Type" : "Bad Request",
                            "The request body must be application/json; nothing was done.",
                            new FieldError("Content-Type", contentType == null ? "is required with a body"
                                    : "is not a media type (RFC 9110 8.3.1)"));
                    return;
                }
                boolean rawMail = type.get().isMessage() && request.getMethod().equals("POST")
                        && path.equals(RAW_MAIL_PATH);
                if (!type.get().isJson() && !rawMail) {
                    refuse(response, 415, "urn:mailqueue:problem:unsupported-media-type", "Unsupported Media Type",
                            "The request body must be application/json; nothing was done.",
                            new FieldError("Content-Type", "must be application/json (UTF-8)"));
                    return;
                }
            }
        }
        long declared = framing.declared().orElse(-1);
        if (!framing.hasBody()) {
            chain.doFilter(new LimitedRequest(request, maxRequestBytes, declared), response);
            return;
        }
        long size = declared >= 0 ? declared : maxRequestBytes;
        Optional<BodyBudget.Share> share = budget.take(size);
        if (share.isEmpty()) {
            LOG.warning(() -> "answered 503 to a body of " + size + " bytes: mailqueue.http.max-inflight-bytes ("
                    + maxInflightBytes + ") stayed full for " + inflightWaitMillis + " ms");
            busy(response, size);
            return;
        }
        try (BodyBudget.Share held = share.get()) {
            chain.doFilter(new LimitedRequest(request, maxRequestBytes, declared), response);
        }
    }

    private void busy(HttpServletResponse response, long size) throws IOException {
        response.setHeader("Retry-After", String.valueOf(Math.max(1, (inflightWaitMillis + 999) / 1000)));
        refuse(response, 503, "urn:mailqueue:problem:busy", "Service Unavailable",
                "The server is working on as many request bytes as it may hold at once; nothing was done."
                        + " Send the request again after Retry-After seconds.",
                new FieldError("Content-Length", size + " bytes did not fit in mailqueue.http.max-inflight-bytes ("
                        + maxInflightBytes + ") within " + inflightWaitMillis + " ms"));
    }

    /** @return {@code scheme://host:port} this request was addressed to (its Host header) */
    private static String ownOrigin(HttpServletRequest request) {
        return request.getScheme() + "://" + request.getServerName() + ":" + request.getServerPort();
    }

    private void tooLarge(HttpServletResponse response) throws IOException {
        refuse(response, 413, "urn:mailqueue:problem:request-too-large", "Content Too Large",
                "The request body is larger than this server accepts; nothing was done.",
                new FieldError("Content-Length", "must be at most " + maxRequestBytes + " bytes"
                        + " (mailqueue.http.max-request-bytes)"));
    }

    /**
     * @return true when the request's Content-Encoding fields (RFC 9110 §8.4: a list, in the order applied) name a
     *         coding other than {@code identity}. The API takes none: Liberty would inflate gzip by itself and
     *         WildFly would not, so the same request would mean two things.
     */
    private static boolean hasContentCoding(HttpServletRequest request) {
        for (String field : Collections.list(request.getHeaders("Content-Encoding"))) {
            for (String coding : field.split(",")) {
                if (!coding.isBlank() && !coding.strip().equalsIgnoreCase("identity")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void refuse(HttpServletResponse response, int status, String type, String title, String detail,
                               FieldError error) throws IOException {
        ProblemWriter.write(response, new Problem(type, title, status, detail, List.of(error)));
    }

    /** The request with its body counted against the limit and its Content-Length. */
    private static final class LimitedRequest extends HttpServletRequestWrapper {

        private final long limit;
        private final long declared;
        private ServletInputStream body;

        LimitedRequest(HttpServletRequest request, long limit, long declared) {
            super(request);
            this.limit = limit;
            this.declared = declared;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (body == null) {
                ServletInputStream in = super.getInputStream();
                LimitedInputStream limited = new LimitedInputStream(in, limit, declared);
                body = new ServletInputStream() {
                    @Override
                    public int read() throws IOException {
                        return limited.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        return limited.read(b, off, len);
                    }

                    @Override
                    public boolean isFinished() {
                        return in.isFinished();
                    }

                    @Override
                    public boolean isReady() {
                        return in.isReady();
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        in.setReadListener(listener);
                    }
                };
            }
            return body;
        }

        @Override
        public java.io.BufferedReader getReader() throws IOException {
            String encoding = getCharacterEncoding();
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(),
                    encoding == null ? java.nio.charset.StandardCharsets.UTF_8 : java.nio.charset.Charset.forName(encoding)));
        }
    }
}
