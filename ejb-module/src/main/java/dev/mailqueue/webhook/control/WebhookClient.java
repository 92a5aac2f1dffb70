package dev.mailqueue.webhook.control;

import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * POSTs one signed webhook request with Apache HttpClient 5 (classic): JSON body, the Standard Webhooks
 * headers ({@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature}), and what a stranger's
 * server can do to the caller bounded:
 * <ul>
 *   <li>one deadline for the whole call, {@code timeoutMillis}: waiting for a pooled connection,
 *       connecting, TLS, sending, the response headers and reading the body; when it passes, the request
 *       is cancelled from the timer thread, which closes its connection (a receiver that drips its answer
 *       a byte at a time holds the call no longer than that). Each of those steps also has that timeout
 *       of its own. Not covered: the name lookup, which the operating system's resolver bounds;</li>
 *   <li>the answer's status decides: 2xx is delivered (Standard Webhooks), anything else is a failure.
 *       The body is read only so that the connection can be used again, at most
 *       {@value #MAX_RESPONSE_BODY_BYTES} bytes and within the deadline; a longer or slower body closes
 *       the connection instead and does not change the outcome;</li>
 *   <li>response header lines of at most {@value #MAX_HEADER_LINE_BYTES} bytes, at most
 *       {@value #MAX_HEADER_COUNT} header fields (a longer head is a failure);</li>
 *   <li>no redirects followed (a redirect could lead to an address {@link PublicAddresses} would refuse; it
 *       counts as a failure), no automatic retries, no cookies, no content coding, no proxy;</li>
 *   <li>every new connection goes to an address that was resolved once and checked
 *       ({@link PinnedResolver}); TLS still checks the certificate against the URL's host name, and
 *       sends that name in SNI and {@code Host}.</li>
 * </ul>
 * Thread-safe: one client serves every endpoint, up to {@value #MAX_CONNECTIONS_PER_HOST} connections a
 * host and {@value #MAX_CONNECTIONS} in all. {@link #close()} closes every connection at once.
 */
public final class WebhookClient implements AutoCloseable {

    /** Most bytes of a response body read, 64 KiB: receivers are expected to answer with an empty body. */
    public static final int MAX_RESPONSE_BODY_BYTES = 64 * 1024;

    /** Longest response header line, bytes. */
    static final int MAX_HEADER_LINE_BYTES = 8 * 1024;

    /** Most response header fields. */
    static final int MAX_HEADER_COUNT = 100;

    /** Connections kept per host and in all. */
    static final int MAX_CONNECTIONS_PER_HOST = 4;
    static final int MAX_CONNECTIONS = 64;

    /** How one request went. */
    public record Result(Integer status, String error) {

        /** @return true when the receiver answered 2xx */
        public boolean delivered() {
            return error == null;
        }
    }

    private static final ContentType JSON = ContentType.create("application/json"); // RFC 8259 §11: no charset parameter

    private final long timeoutMillis;
    private final ScheduledExecutorService timer;
    private final CloseableHttpClient http;

    /**
     * @param timeoutMillis         the deadline of one call, ms, 1 or more
     * @param allowPrivateAddresses true to send to any address (still the one resolved and checked)
     * @param timer                 runs the cancellation at each call's deadline (the container's managed
     *                              scheduled executor)
     * @throws IllegalStateException when the JVM has no default TLS context
     */
    public WebhookClient(long timeoutMillis, boolean allowPrivateAddresses, ScheduledExecutorService timer) {
        this(timeoutMillis, allowPrivateAddresses, timer, InetAddress::getAllByName, defaultTls());
    }

    /**
     * @param lookup the name lookup (tests answer with chosen addresses)
     * @param tls    the TLS context whose trust decides which certificates are accepted
     */
    WebhookClient(long timeoutMillis, boolean allowPrivateAddresses, ScheduledExecutorService timer,
                  PinnedResolver.Lookup lookup, SSLContext tls) {
        if (timeoutMillis < 1) {
            throw new IllegalArgumentException("timeout must be 1 ms or more: " + timeoutMillis);
        }
        this.timeoutMillis = timeoutMillis;
        this.timer = timer;
        Timeout timeout = Timeout.ofMilliseconds(timeoutMillis);
        this.http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDnsResolver(new PinnedResolver(lookup, allowPrivateAddresses))
                        .setTlsSocketStrategy(ClientTlsStrategyBuilder.create().setSslContext(tls).buildClassic())
                        .setConnectionFactory(ManagedHttpClientConnectionFactory.builder()
                                .http1Config(Http1Config.custom().setMaxLineLength(MAX_HEADER_LINE_BYTES)
                                        .setMaxHeaderCount(MAX_HEADER_COUNT).build())
                                .build())
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(timeout).setSocketTimeout(timeout)
                                .setTimeToLive(TimeValue.ofMinutes(5))
                                .setValidateAfterInactivity(TimeValue.ofSeconds(2)).build())
                        .setMaxConnPerRoute(MAX_CONNECTIONS_PER_HOST)
                        .setMaxConnTotal(MAX_CONNECTIONS)
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(timeout).setResponseTimeout(timeout)
                        .setRedirectsEnabled(false).setExpectContinueEnabled(false).build())
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableContentCompression()
                .disableAuthCaching()
                .setUserAgent("mailqueue-webhooks")
                .build();
    }

    private static SSLContext defaultTls() {
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no default TLS context for webhook requests", e);
        }
    }

    /**
     * Sends one event and waits for the answer, at most the deadline (plus the name lookup).
     *
     * @param url       the endpoint, http or https
     * @param id        the webhook-id
     * @param timestamp the webhook-timestamp, seconds since the epoch
     * @param signature the webhook-signature
     * @param body      the JSON body
     * @return 2xx as delivered with its status; any other status, a refused address ("not sent: ..."), the
     *         deadline or a connection failure with its reason; never throws for what the receiver does
     */
    public Result post(URI url, String id, long timestamp, String signature, String body) {
        HttpPost request = new HttpPost(url);
        request.setHeader("webhook-id", id);
        request.setHeader("webhook-timestamp", Long.toString(timestamp));
        request.setHeader("webhook-signature", signature);
        request.setEntity(new ByteArrayEntity(body.getBytes(StandardCharsets.UTF_8), JSON));
        ScheduledFuture<?> deadline = timer.schedule(request::cancel, timeoutMillis, TimeUnit.MILLISECONDS);
        try {
            ClassicHttpResponse response;
            try {
                response = http.executeOpen(null, request, null);
            } catch (PinnedResolver.RefusedAddressException e) {
                return new Result(null, "not sent: " + e.getMessage());
            } catch (IOException e) {
                return new Result(null, request.isCancelled() ? "no answer within " + timeoutMillis + " ms"
                        : "no answer: " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()));
            }
            int status = response.getCode();
            try {
                if (!readToEnd(response.getEntity())) {
                    request.cancel(); // closes the connection: what is left of the body is never read
                }
            } catch (IOException e) {
                request.cancel(); // the deadline, or the receiver broke the body off: the status stands
            }
            try {
                response.close(); // after the end of the body a no-op; after a cancel, on a closed connection
            } catch (IOException e) {
                // the connection is gone already
            }
            return status >= 200 && status < 300 ? new Result(status, null)
                    : new Result(status, "the receiver answered HTTP " + status);
        } finally {
            deadline.cancel(false);
        }
    }

    /** @return true when the body ended within {@value #MAX_RESPONSE_BODY_BYTES} bytes (none counts) */
    private static boolean readToEnd(HttpEntity entity) throws IOException {
        if (entity == null) {
            return true;
        }
        InputStream in = entity.getContent(); // not closed here: closing it would read the rest
        byte[] buffer = new byte[8192];
        long read = 0;
        for (int n; (n = in.read(buffer)) != -1; ) { // reaching the end hands the connection back to the pool
            read += n;
            if (read > MAX_RESPONSE_BODY_BYTES) {
                return false;
            }
        }
        return true;
    }

    /** Closes every connection at once; calls in progress fail. */
    @Override
    public void close() {
        http.close(CloseMode.IMMEDIATE);
    }
}
