package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Another web site cannot make a browser that holds an operator's Basic credentials change the queue
 * (cross-site request forgery): a state-changing request takes only {@code application/json}, and one
 * that a browser marks as coming from another site ({@code Origin}, {@code Sec-Fetch-Site}) is refused;
 * the console cannot be framed. Programs that send neither header, and the console itself, still work.
 * On 61ec004 a form-encoded cancel with {@code Origin: http://evil.example} answered 200.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class CsrfIT extends QueueServerIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aFormPostFromAnotherSiteCannotCancelAMail() {
        long id = queuedForLater().getId();

        HttpResponse<String> forged = send("POST", "/api/admin/mails/" + id + "/cancel", "a=b",
                Map.of("Content-Type", "application/x-www-form-urlencoded", "Origin", "http://evil.example"));
        Problems.assertProblem(forged, 403, "Origin");
        HttpResponse<String> formWithoutOrigin = send("POST", "/api/admin/mails/" + id + "/cancel", "a=b",
                Map.of("Content-Type", "application/x-www-form-urlencoded"));
        Problems.assertProblem(formWithoutOrigin, 415, "Content-Type");
        HttpResponse<String> textPlain = send("POST", "/api/admin/mails/cancel", "{\"ids\":[" + id + "]}",
                Map.of("Content-Type", "text/plain"));
        Problems.assertProblem(textPlain, 415, "Content-Type");

        assertThat(QueueApi.find(id).getStatus()).as("still queued").isEqualTo(MailStatus.QUEUED);
    }

    @Test
    void requestsABrowserMarksAsCrossSiteAreRefusedWhateverTheirType() {
        long id = queuedForLater().getId();

        Problems.assertProblem(send("POST", "/api/admin/mails/cancel", "{\"ids\":[" + id + "]}",
                Map.of("Content-Type", "application/json", "Origin", "https://evil.example")), 403, "Origin");
        Problems.assertProblem(send("POST", "/api/admin/mails/" + id + "/cancel", null,
                Map.of("Sec-Fetch-Site", "cross-site")), 403, "Sec-Fetch-Site");
        Problems.assertProblem(send("DELETE", "/api/admin/mails/" + id, null, Map.of("Origin", "null")), 403, "Origin");

        assertThat(QueueApi.find(id).getStatus()).as("still queued").isEqualTo(MailStatus.QUEUED);
    }

    /**
     * The one-click unsubscribe links are exempt from the Origin check; a path that only begins like one is not:
     * the container serves {@code /api/unsubscribe/../mails} as {@code /api/mails}. On 67a2b04 the exemption
     * tested the request line's text.
     */
    @Test
    void aPathThatOnlyBeginsLikeAnUnsubscribeLinkIsNotExempt() {
        long stored = QueueApi.storedMails();
        String body = "{\"from\":\"alice@sender.example\",\"to\":[\"dot-segments@to.example\"],\"text\":\"x\"}";
        for (String target : java.util.List.of("/api/unsubscribe/../mails", "/api/unsubscribe/%2E%2E/mails",
                "/api/unsubscribe/./../mails")) {
            RawHttp.Answer answer = RawHttp.send("POST " + target + " HTTP/1.1\nHost: localhost\nAuthorization: "
                    + TestUser.SENDER.basic() + "\nContent-Type: application/json\nOrigin: http://evil.example\n"
                    + "Connection: close\nContent-Length: " + body.length(), body.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    false);

            assertThat(answer.status()).as("%s: %s", target, answer.body()).isNotEqualTo(202).isBetween(400, 499);
        }
        assertThat(QueueApi.storedMails()).as("nothing queued").isEqualTo(stored);
    }

    @Test
    void theConsolesOwnRequestsAndProgramsWithoutOriginStillWork() {
        long first = queuedForLater().getId();
        long second = queuedForLater().getId();

        HttpResponse<String> sameOrigin = send("POST", "/api/admin/mails/" + first + "/cancel", null,
                Map.of("Origin", QueueApi.BASE, "Sec-Fetch-Site", "same-origin"));
        assertThat(sameOrigin.statusCode()).as(sameOrigin.body()).isEqualTo(200);
        HttpResponse<String> program = send("POST", "/api/admin/mails/cancel", "{\"ids\":[" + second + "]}",
                Map.of("Content-Type", "application/json"));
        assertThat(program.statusCode()).as(program.body()).isEqualTo(200);

        assertThat(QueueApi.find(first).getStatus()).isEqualTo(MailStatus.CANCELLED);
        assertThat(QueueApi.find(second).getStatus()).isEqualTo(MailStatus.CANCELLED);
    }

    @Test
    void theConsoleCannotBeFramed() {
        for (String path : new String[]{"/admin/", "/admin/console.js", "/api/admin/statistics"}) {
            HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, path);
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Security-Policy")).as(path)
                    .hasValueSatisfying(csp -> assertThat(csp).contains("frame-ancestors 'none'"));
            assertThat(response.headers().firstValue("X-Frame-Options")).as(path).hasValue("DENY");
            assertThat(response.headers().firstValue("X-Content-Type-Options")).as(path).hasValue("nosniff");
        }
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/admin/").headers()
                .firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp).contains("default-src 'self'"));
    }

    private static EnqueueReceipt queuedForLater() {
        return QueueApi.enqueue(new MailRequest().from("alice@sender.example").to("csrf@to.example")
                .subject("must stay queued").text("x").notBefore(Instant.now().plus(Duration.ofHours(2))));
    }

    /** Sends as the administrator, with the given headers. */
    private static HttpResponse<String> send(String method, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(QueueApi.BASE + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", TestUser.ADMIN.basic());
        headers.forEach(request::header);
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
