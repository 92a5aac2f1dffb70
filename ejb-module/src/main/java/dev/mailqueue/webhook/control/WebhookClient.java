package dev.mailqueue.webhook.control;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * POSTs one signed webhook request with {@code java.net.http}: JSON body, the Standard Webhooks headers
 * ({@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature}), connect and response
 * timeouts, and no redirects followed (a redirect could lead to an address {@link PublicAddresses} would
 * refuse; it counts as a failure).
 */
public final class WebhookClient {

    /** How one request went. */
    public record Result(Integer status, String error) {

        /** @return true when the receiver answered 2xx */
        public boolean delivered() {
            return error == null;
        }
    }

    private final HttpClient http;
    private final Duration timeout;

    /** @param timeoutMillis the connect and the response timeout, ms each */
    public WebhookClient(long timeoutMillis) {
        this.timeout = Duration.ofMillis(timeoutMillis);
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * @param url       the endpoint
     * @param id        the webhook-id
     * @param timestamp the webhook-timestamp, seconds since the epoch
     * @param signature the webhook-signature
     * @param body      the JSON body
     * @return 2xx as delivered; any other status, a timeout or a connection failure with its reason
     */
    public Result post(URI url, String id, long timestamp, String signature, String body) {
        HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout)
                .header("Content-Type", "application/json")
                .header("User-Agent", "mailqueue-webhooks")
                .header("webhook-id", id)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", signature)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            int status = response.statusCode();
            return status >= 200 && status < 300 ? new Result(status, null)
                    : new Result(status, "the receiver answered HTTP " + status);
        } catch (IOException e) {
            return new Result(null, "no answer: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(null, "interrupted");
        }
    }
}
