package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbConfig;
import jakarta.json.bind.config.BinaryDataStrategy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The test's HTTP client of the running server: the REST API and the probe application. Requests go
 * as {@link TestUser#SENDER} unless a method takes another user (or none, to test the 401).
 */
final class QueueApi {

    static final String BASE = "http://localhost:" + System.getProperty("it.http.port", "9181");
    static final String HTTPS_BASE = "https://localhost:" + System.getProperty("it.https.port", "9543");

    // HTTP/1.1: with the JDK client's default h2c upgrade, Liberty 26.0.0.3 answered concurrent
    // authenticated POSTs with GOAWAY (and logged NPEs in its HTTP channel).
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1).sslContext(TrustingTls.context()).build();
    // As the server's JSON-B: attachment content as base64.
    private static final Jsonb JSON = JsonbBuilder.create(new JsonbConfig().withBinaryDataStrategy(BinaryDataStrategy.BASE_64));

    private QueueApi() {
    }

    /** POSTs a body to /api/mails as JSON. */
    static HttpResponse<String> post(String json) {
        return postTo("/api/mails", json);
    }

    /** POSTs a JSON body to a path of the server. */
    static HttpResponse<String> postTo(String path, String json) {
        return postTo(BASE, path, json);
    }

    /** POSTs a JSON body to a path of the server at {@code base}, e.g. the second server. */
    static HttpResponse<String> postTo(String base, String path, String json) {
        return postAs(TestUser.SENDER, base, path, json);
    }

    /** POSTs a JSON body as {@code user} (null: without credentials). */
    static HttpResponse<String> postAs(TestUser user, String base, String path, String json) {
        return send(user, HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** POSTs a mail to /api/mails with an {@code Idempotency-Key} header, as the sender. */
    static HttpResponse<String> postWithKey(String json, String idempotencyKey) {
        return postWithKey(TestUser.SENDER, json, idempotencyKey);
    }

    /** POSTs a mail to /api/mails with an {@code Idempotency-Key} header, as {@code user}. */
    static HttpResponse<String> postWithKey(TestUser user, String json, String idempotencyKey) {
        return postWithKey(BASE, user, json, idempotencyKey);
    }

    /** POSTs a mail to {@code base}/api/mails with an {@code Idempotency-Key} header, as {@code user}. */
    static HttpResponse<String> postWithKey(String base, TestUser user, String json, String idempotencyKey) {
        return send(user, HttpRequest.newBuilder(URI.create(base + "/api/mails"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /**
     * POSTs a finished message to /api/mails as {@code message/rfc822}, as the sender.
     *
     * @param query   the query with its {@code ?}, or empty
     * @param message the RFC 5322 message
     */
    static HttpResponse<String> postRaw(String query, byte[] message) {
        return postRawAs(TestUser.SENDER, query, message);
    }

    /** As {@link #postRaw}, as the given user. */
    static HttpResponse<String> postRawAs(TestUser user, String query, byte[] message) {
        return send(user, HttpRequest.newBuilder(URI.create(BASE + "/api/mails" + query))
                .header("Content-Type", "message/rfc822")
                .POST(HttpRequest.BodyPublishers.ofByteArray(message)));
    }

    /** @return a receipt from a JSON body */
    static EnqueueReceipt receipt(String body) {
        return JSON.fromJson(body, EnqueueReceipt.class);
    }

    /** Enqueues through REST and checks the 202 answer. @return the receipt */
    static EnqueueReceipt enqueue(MailRequest mail) {
        HttpResponse<String> response = post(toJson(mail));
        assertThat(response.statusCode()).as("POST /api/mails: %s", response.body()).isEqualTo(202);
        return JSON.fromJson(response.body(), EnqueueReceipt.class);
    }

    /** @return GET /api/mails/{id} as a view; fails the test on any status but 200 */
    static MailView find(long id) {
        HttpResponse<String> response = get("/api/mails/" + id);
        assertThat(response.statusCode()).as("GET mail %s: %s", id, response.body()).isEqualTo(200);
        return JSON.fromJson(response.body(), MailView.class);
    }

    /** Waits (bounded) until the mail reaches {@code status}. @return the mail then */
    static MailView awaitStatus(long id, MailStatus status, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(200))
                .until(() -> find(id).getStatus() == status);
        return find(id);
    }

    static HttpResponse<String> get(String path) {
        return getFrom(BASE, path);
    }

    static HttpResponse<String> getFrom(String base, String path) {
        return getAs(TestUser.SENDER, base, path);
    }

    /** GETs {@code base + path} as {@code user} (null: without credentials). */
    static HttpResponse<String> getAs(TestUser user, String base, String path) {
        return send(user, HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    /** Sends a request without a body, e.g. DELETE. */
    static HttpResponse<String> send(String method, String path) {
        return sendAs(TestUser.SENDER, method, path);
    }

    /** Sends a request without a body as {@code user} (null: without credentials). */
    static HttpResponse<String> sendAs(TestUser user, String method, String path) {
        return send(user, HttpRequest.newBuilder(URI.create(BASE + path))
                .method(method, HttpRequest.BodyPublishers.noBody()));
    }

    /** Sends a JSON body with {@code method} (PUT, say) as {@code user}. */
    static HttpResponse<String> sendAs(TestUser user, String method, String path, String json) {
        return send(user, HttpRequest.newBuilder(URI.create(BASE + path))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(json)));
    }

    static HttpResponse<String> postForm(String path) {
        return sendAs(TestUser.SENDER, "POST", path);
    }

    /** @return the request as the JSON body of POST /api/mails */
    static String toJson(MailRequest mail) {
        return JSON.toJson(mail);
    }

    /** @return the receipts of a batch answer */
    static List<EnqueueReceipt> receipts(String body) {
        return JSON.fromJson(body, new ArrayList<EnqueueReceipt>() { }.getClass().getGenericSuperclass());
    }

    /** @return an attempt log, the body of GET /api/admin/mails/{id}/attempts */
    static List<AttemptView> attempts(String body) {
        return JSON.fromJson(body, new ArrayList<AttemptView>() { }.getClass().getGenericSuperclass());
    }

    /** @return a JSON object body as a map */
    @SuppressWarnings("unchecked")
    static Map<String, Object> jsonObject(String body) {
        return JSON.fromJson(body, Map.class);
    }

    /** @return a JSON array of objects as a list of maps */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> jsonList(String body) {
        return JSON.fromJson(body, List.class);
    }

    /** @return rows in the mail table, read by the probe application */
    static long storedMails() {
        HttpResponse<String> response = get("/probe/db?op=count");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Long.parseLong(response.body().strip());
    }

    /** @return rows in a queue table (MAIL_ATTEMPT, MAIL_ATTACHMENT, MAIL_HEADER, ...), all or of one mail */
    static long storedRows(String table, Long mailId) {
        HttpResponse<String> response = get("/probe/db?op=count&table=" + table + (mailId == null ? "" : "&mailId=" + mailId));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Long.parseLong(response.body().strip());
    }

    private static HttpResponse<String> send(TestUser user, HttpRequest.Builder request) {
        if (user != null) {
            request.header("Authorization", user.basic());
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
