package dev.mailqueue.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every error is problem details (RFC 9457), also those the container answers before the application
 * sees the request: the login's 401 (with its Basic challenge), a security constraint's 403, an unknown
 * path's 404, JAX-RS's 405 (with Allow), 406 and 415, a 400 for an Accept or Content-Type header that
 * does not parse or an encoded slash in the path; and none of them carries a stack trace, an exception's
 * text or the container's own message. On 61ec004 these were empty bodies, HTML or RESTEasy's text.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class ContainerProblemsIT extends QueueServerIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aMissingOrWrongLoginIs401ProblemWithTheBasicChallenge() {
        for (HttpResponse<String> response : List.of(
                QueueApi.postAs(null, QueueApi.BASE, "/api/mails", "{}"),
                QueueApi.getAs(null, QueueApi.BASE, "/api/admin/mails"),
                QueueApi.getAs(null, QueueApi.BASE, "/admin/"),
                QueueApi.getAs(null, QueueApi.BASE, "/nothing"),
                QueueApi.getAs(TestUser.ADMIN.withPassword("wrong"), QueueApi.BASE, "/api/admin/statistics"),
                request("GET", "/api/mails/1", "Authorization", "Bearer abc"))) {
            Problems.assertProblem(response, 401, null);
            assertThat(response.headers().firstValue("WWW-Authenticate")).as("%s", response.uri())
                    .hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm=\"mailqueue\""));
        }
    }

    @Test
    void anAuthorizationHeaderThatIsNoBasicCredentialsIs400Problem() {
        // Base64 of a text without a colon, and no base64 at all (Liberty itself would fail on these: see
        // BasicAuthentication.malformed).
        Problems.assertProblem(request("GET", "/api/mails/1", "Authorization", "Basic bm8tY29sb24="), 400, "Authorization");
        Problems.assertProblem(request("GET", "/api/mails/1", "Authorization", "Basic !!!"), 400, "Authorization");
    }

    @Test
    void aRoleTheCallerLacksIs403Problem() {
        Problems.assertProblem(QueueApi.getAs(TestUser.SENDER, QueueApi.BASE, "/api/admin/mails"), 403, null);
        Problems.assertProblem(QueueApi.getAs(TestUser.SENDER, QueueApi.BASE, "/admin/"), 403, null);
        Problems.assertProblem(QueueApi.getAs(TestUser.NOBODY, QueueApi.BASE, "/api/mails/1"), 403, null);
        Problems.assertProblem(QueueApi.postAs(TestUser.NOBODY, QueueApi.BASE, "/api/mails", "{}"), 403, null);
    }

    @Test
    void unknownPathsMethodsAndMediaTypesAreProblems() {
        Problems.assertProblem(QueueApi.get("/nothing-here"), 404, null);
        Problems.assertProblem(QueueApi.get("/api/nothing-here"), 404, null);
        Problems.assertProblem(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/admin/nothing.html"), 404, null);
        Problems.assertProblem(QueueApi.get("/api/mails/not-a-number"), 404, null);

        HttpResponse<String> put = request("PUT", "/api/mails/1", "Content-Type", "application/json");
        Problems.assertProblem(put, 405, null);
        assertThat(put.headers().firstValue("Allow")).hasValueSatisfying(allow -> assertThat(allow).contains("GET", "DELETE"));

        Problems.assertProblem(request("GET", "/api/mails/1", "Accept", "text/xml"), 406, null);
        Problems.assertProblem(request("POST", "/api/mails", "Content-Type", "text/plain"), 415, "Content-Type");
    }

    @Test
    void headersAndPathsTheContainerCannotParseAre400Problems() {
        Problems.assertProblem(request("GET", "/api/mails/1", "Accept", ",,;;q=x"), 400, null);
        Problems.assertProblem(request("POST", "/api/mails", "Content-Type", ";;;"), 400, "Content-Type");
        Problems.assertProblem(QueueApi.get("/api/mails/%2F"), 400, null);
        Problems.assertProblem(QueueApi.get("/api/mails/1%2F2"), 400, null);
    }

    /** Sends a request as the sender with one extra header (replacing the login when it is Authorization). */
    private static HttpResponse<String> request(String method, String path, String header, String value) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(QueueApi.BASE + path))
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("{}"))
                .header(header, value);
        if (!header.equals("Authorization")) {
            request.header("Authorization", TestUser.SENDER.basic());
        }
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
