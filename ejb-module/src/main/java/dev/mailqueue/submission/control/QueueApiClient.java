package dev.mailqueue.submission.control;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * Hands a submitted message to the queue through the server's own REST API ({@code POST /api/mails} with a
 * {@code message/rfc822} body), as the user the SMTP client authenticated as, so that the users, roles,
 * allow-lists, limits and checks of the API apply to SMTP submission unchanged, on every server the EAR runs on
 * (Jakarta EE has no portable way to log a user in outside an HTTP request). The call answers only once the
 * mail is committed (or refused), which is when SMTP may answer 250 (RFC 5321 §4.2.5: a 250 to DATA takes the
 * responsibility for the message).
 *
 * <p>Each enqueue carries an {@code Idempotency-Key}: the SHA-256 of its envelope and of the bytes the client sent,
 * without the listener's own {@code Received:} field (which names the session and the time, and so differs on every
 * connection), so a client that sends the same message again after a reply it never saw (a dropped connection, a
 * 451 while the commit in fact happened) gets the first mail back, not a second one.
 */
public class QueueApiClient {

    /** What the API answered. */
    public sealed interface Answer {
    }

    /**
     * The mail is queued, now or by the same submission earlier.
     *
     * @param id        its id
     * @param messageId its Message-ID
     * @param duplicate whether an earlier submission of the same envelope and message had queued it
     */
    public record Queued(long id, String messageId, boolean duplicate) implements Answer {
    }

    /**
     * The API refused the request.
     *
     * @param status the HTTP status
     * @param fields the fields its problem details named, with their reasons ({@code field: reason})
     */
    public record Refused(int status, List<String> fields) implements Answer {
    }

    private final HttpClient http;
    private final String base;
    private final Duration timeout;

    /**
     * @param base    the server's base URL, e.g. {@code http://localhost:9080}
     * @param timeout how long a call may take, connect and answer together
     */
    public QueueApiClient(String base, Duration timeout) {
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
        this.base = base;
        this.timeout = timeout;
    }

    /**
     * Checks a user's password and role: the API answers 404 to an authenticated sender asking for mail 0,
     * which never exists.
     *
     * @param user     the user name
     * @param password the password
     * @return true when the user may enqueue (role {@code mail-sender} or {@code mail-admin}); false when the
     *         credentials are wrong or the user has neither role
     * @throws IOException when the API cannot be reached or answers anything else
     */
    public boolean mayEnqueue(String user, String password) throws IOException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(base + "/api/mails/0"))
                .header("Authorization", basic(user, password)).GET());
        return switch (response.statusCode()) {
            case 404 -> true;
            case 401, 403 -> false;
            default -> throw new IOException("the queue's API answered " + response.statusCode() + " to a login check");
        };
    }

    /**
     * @param user       the authenticated user
     * @param password   its password
     * @param from       the envelope sender (MAIL FROM), or empty for the null reverse-path
     * @param recipients the envelope recipients (RCPT TO)
     * @param trace      the listener's {@code Received:} field (RFC 5321 §4.4), CRLF-terminated, queued in front of
     *                   the message but not part of its idempotency key
     * @param message    the message as the client sent it
     * @return what the API answered
     * @throws IOException when the API cannot be reached, times out, or answers with a server error
     */
    public Answer enqueue(String user, String password, String from, List<String> recipients, byte[] trace,
                          byte[] message) throws IOException {
        StringBuilder query = new StringBuilder();
        if (!from.isEmpty()) {
            query.append("from=").append(encode(from));
        }
        for (String recipient : recipients) {
            query.append(query.isEmpty() ? "" : "&").append("to=").append(encode(recipient));
        }
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(base + "/api/mails?" + query))
                .header("Authorization", basic(user, password))
                .header("Content-Type", "message/rfc822")
                .header("Idempotency-Key", key(from, recipients, message))
                .POST(HttpRequest.BodyPublishers.concat(HttpRequest.BodyPublishers.ofByteArray(trace),
                        HttpRequest.BodyPublishers.ofByteArray(message))));
        int status = response.statusCode();
        if (status == 200 || status == 202) {
            JsonObject receipt = json(response.body());
            return new Queued(receipt.getJsonNumber("id").longValue(), receipt.getString("messageId"), status == 200);
        }
        if (status >= 500) {
            throw new IOException("the queue's API answered " + status);
        }
        return new Refused(status, fields(response.body()));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the queue's API answered", e);
        }
    }

    /** @return the fields of a problem's {@code errors}, or its detail when it names none */
    private static List<String> fields(String body) {
        List<String> fields = new ArrayList<>();
        try {
            JsonObject problem = json(body);
            if (problem.containsKey("errors") && problem.get("errors").getValueType() == JsonValue.ValueType.ARRAY) {
                for (JsonValue error : problem.getJsonArray("errors")) {
                    JsonObject e = error.asJsonObject();
                    fields.add(e.getString("field", "") + ": " + e.getString("message", ""));
                }
            }
            if (fields.isEmpty()) {
                fields.add(": " + problem.getString("detail", problem.getString("title", "refused")));
            }
        } catch (RuntimeException e) {
            fields.add(": refused");
        }
        return fields;
    }

    private static JsonObject json(String body) {
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            return reader.readObject();
        }
    }

    /**
     * @return the submission's idempotency key: {@code smtp-} and the SHA-256 of its envelope and of the message's
     *         bytes as the client sent them (nothing the listener adds)
     */
    static String key(String from, List<String> recipients, byte[] message) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(from.getBytes(StandardCharsets.UTF_8));
            for (String recipient : recipients) {
                digest.update((byte) 0);
                digest.update(recipient.getBytes(StandardCharsets.UTF_8));
            }
            digest.update((byte) 1);
            digest.update(message);
            return "smtp-" + HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
