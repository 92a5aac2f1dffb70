package dev.mailqueue.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Limits hold while a request is read, not after it was held whole: a body above
 * {@code mailqueue.http.max-request-bytes} (4 MiB on the test server) is 413 problem details, refused
 * at once when its Content-Length says so and as soon as the limit is passed when it comes chunked; a
 * batch counts as one request and holds at most 1,000 mails; ambiguous framing (Content-Length twice)
 * and a body that ends before its Content-Length are 400. Nothing of any of them is stored. Bodies
 * share {@code mailqueue.http.max-inflight-bytes} (8 MiB on the test server, wait 2 s): a large body
 * that does not fit beside those being read gets 503 with Retry-After, a small one still passes.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class RequestLimitsIT extends QueueServerIT {

    private static final int LIMIT = 4 * 1024 * 1024;

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** The head of a raw mail POST as the sender, without its framing header fields ({@link RawHttp}). */
    private static final String MAIL_POST = "POST /api/mails HTTP/1.1\nHost: localhost\nAuthorization: "
            + TestUser.SENDER.basic() + "\nContent-Type: application/json\nConnection: close";

    /**
     * The JDK's client, as most Java callers use it, speaks HTTP/2 over TLS when the server offers it (Liberty does):
     * its POST is taken (Liberty hands the servlet an HTTP/2 request's content-length twice, which the framing rule
     * refused until it learnt that HTTP/2 frames the body itself), and a mail sent so is stored once.
     */
    @Test
    void aClientSpeakingHttp2OverTlsCanEnqueue() throws Exception {
        HttpClient http2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(TrustingTls.context())
                .connectTimeout(Duration.ofSeconds(10)).build();
        long stored = QueueApi.storedMails();
        HttpResponse<String> response = http2.send(HttpRequest.newBuilder(URI.create(QueueApi.HTTPS_BASE + "/api/mails"))
                .header("Authorization", TestUser.SENDER.basic()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"from\":\"alice@sender.example\",\"to\":[\"h2@to.example\"],"
                        + "\"subject\":\"over HTTP/2\",\"text\":\"x\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.version()).as("the protocol the server agreed to").isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        assertThat(QueueApi.storedMails()).isEqualTo(stored + 1);
    }

    @Test
    void aBodyOverTheLimitIs413WhetherItsLengthIsDeclaredOrNot() throws Exception {
        long stored = QueueApi.storedMails();
        byte[] big = ("{\"from\":\"alice@sender.example\",\"to\":[\"big@to.example\"],\"text\":\""
                + "x".repeat(LIMIT) + "\"}").getBytes(StandardCharsets.UTF_8);

        HttpResponse<String> declared = post("/api/mails", HttpRequest.BodyPublishers.ofByteArray(big));
        Problems.assertProblem(declared, 413, "Content-Length");

        // Of unknown length, the JDK client sends the body chunked: the limit stops the reading.
        HttpResponse<String> chunked = post("/api/mails",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big)));
        Problems.assertProblem(chunked, 413, "");

        String attachment = Base64.getEncoder().encodeToString(new byte[700 * 1024]);
        String mail = "{\"from\":\"alice@sender.example\",\"to\":[\"batch@to.example\"],\"text\":\"x\","
                + "\"attachments\":[{\"filename\":\"a.bin\",\"content\":\"" + attachment + "\"}]}";
        String batch = IntStream.range(0, 5).mapToObj(i -> mail).collect(Collectors.joining(",", "[", "]"));
        Problems.assertProblem(post("/api/mails/batch", HttpRequest.BodyPublishers.ofString(batch)), 413, "Content-Length");

        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);
    }

    @Test
    void aBatchHoldsAtMost10000Mails() {
        long stored = QueueApi.storedMails();
        String mail = "{\"from\":\"alice@sender.example\",\"to\":[\"many@to.example\"],\"text\":\"x\"}";
        String batch = IntStream.range(0, 10_001).mapToObj(i -> mail).collect(Collectors.joining(",", "[", "]"));

        HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", batch);

        Problems.assertProblem(response, 400, "");
        assertThat(response.body()).contains("10000");
        assertThat(QueueApi.storedMails()).isEqualTo(stored);
    }

    /** Issue 47's fuzzer: these were 500s on 67a2b04. */
    @Test
    void hugeNumbersAre400NamingTheFieldAndStoreNothing() {
        long stored = QueueApi.storedMails();
        String mail = "\"from\":\"alice@sender.example\",\"to\":[\"numbers@to.example\"],\"text\":\"x\"";
        record Case(String json, String field) {
        }
        for (Case c : List.of(new Case("{" + mail + ",\"priority\":" + "7".repeat(100_000) + "}", "priority"),
                new Case("{" + mail + ",\"priority\":1e2147483648}", "priority"),
                new Case("{" + mail + ",\"unknown\":" + "7".repeat(1_000_000) + "}", "unknown"))) {
            HttpResponse<String> response = QueueApi.post(c.json());

            Problems.assertProblem(response, 400, c.field());
        }
        assertThat(QueueApi.storedMails()).isEqualTo(stored);
    }

    @Test
    void ambiguousOrTruncatedBodiesAre400AndStoreNothing() {
        long stored = QueueApi.storedMails();
        String body = "{\"from\":\"alice@sender.example\",\"to\":[\"framing@to.example\"],\"text\":\"x\"}";
        String head = MAIL_POST;

        RawHttp.Answer twice = RawHttp.send(head + "\nContent-Length: " + body.length() + "\nContent-Length: "
                + body.length(), body.getBytes(StandardCharsets.UTF_8), false);
        assertThat(twice.status()).as(twice.body()).isEqualTo(400);
        assertThat(twice.contentType()).startsWith("application/problem+json");
        assertThat(Problems.fields(twice.body())).contains("Content-Length");

        RawHttp.Answer shorter = RawHttp.send(head + "\nContent-Length: " + (body.length() + 40),
                body.getBytes(StandardCharsets.UTF_8), true);
        assertThat(shorter.status()).as(shorter.body()).isEqualTo(400);
        assertThat(shorter.contentType()).startsWith("application/problem+json");
        assertThat(Problems.fields(shorter.body())).contains("Content-Length");

        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);
    }

    /**
     * A chunked body that breaks RFC 9112 §7.1's grammar (a chunk size that is not hex, a chunk shorter than
     * its size before the connection ends, chunk data not followed by CRLF) is 400 problem details, and
     * nothing is stored.
     */
    @Test
    void malformedChunkedBodiesAre400AndStoreNothing() {
        long stored = QueueApi.storedMails();
        String body = "{\"from\":\"alice@sender.example\",\"to\":[\"chunks@to.example\"],\"text\":\"x\"}";
        String head = MAIL_POST + "\nTransfer-Encoding: chunked";
        Map<String, String> broken = new java.util.LinkedHashMap<>();
        broken.put("a size that is not hex", "zz\r\n" + body + "\r\n0\r\n\r\n");
        broken.put("a chunk cut short", Integer.toHexString(body.length() + 40) + "\r\n" + body);
        broken.put("chunk data without its CRLF", Integer.toHexString(body.length()) + "\r\n" + body + "XX0\r\n\r\n");
        broken.forEach((what, chunks) -> {
            RawHttp.Answer answer = RawHttp.send(head, chunks.getBytes(StandardCharsets.UTF_8), true);
            assertThat(answer.status()).as(what + ": " + answer.body()).isEqualTo(400);
            assertThat(answer.contentType()).as(what).startsWith("application/problem+json");
            assertThat(Problems.fields(answer.body())).as(what).contains("Transfer-Encoding");
        });
        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);
    }

    @Test
    void aSecondRequestHiddenBehindConflictingLengthsIsNeverServed() {
        String body = "{\"ids\":[1]}";
        String smuggled = "DELETE /api/admin/mails/1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: "
                + TestUser.ADMIN.basic() + "\r\n\r\n";
        String head = "POST /api/admin/mails/requeue HTTP/1.1\nHost: localhost\nAuthorization: " + TestUser.ADMIN.basic()
                + "\nContent-Type: application/json\nContent-Length: " + body.length()
                + "\nContent-Length: " + (body.length() + smuggled.length());

        RawHttp.Answer answer = RawHttp.send(head, (body + smuggled).getBytes(StandardCharsets.UTF_8), false);

        // Liberty keeps the first length of two that differ (the application sees only that one), answers,
        // and closes the connection, so what follows the first length is never read as a request.
        assertThat(answer.body()).as("one answer only").doesNotContain("HTTP/1.1");
        assertThat(answer.headers().get("connection")).isEqualToIgnoringCase("close");
    }

    @Test
    void aLargeBodyThatFindsTheBudgetFullIs503AndASmallOnePasses() throws Exception {
        long stored = QueueApi.storedMails();
        int large = LIMIT - 1024; // two of them fill the 8 MiB budget but for 2 KiB
        String head = MAIL_POST + "\nContent-Length: " + large;
        try (Socket first = startBody(head); Socket second = startBody(head)) {
            Thread.sleep(1000); // both are being read: each holds its share until its body ends

            long started = System.nanoTime();
            RawHttp.Answer third = RawHttp.sendForAnswer(head, new byte[0]);
            long waitedMillis = (System.nanoTime() - started) / 1_000_000;
            assertThat(third.status()).as(third.body()).isEqualTo(503);
            assertThat(third.contentType()).startsWith("application/problem+json");
            assertThat(Problems.fields(third.body())).contains("Content-Length");
            assertThat(third.headers().get("retry-after")).isEqualTo("2");
            assertThat(waitedMillis).as("it waited for room before giving up").isGreaterThanOrEqualTo(1900);

            HttpResponse<String> small = QueueApi.postTo("/api/mails",
                    "{\"from\":\"alice@sender.example\",\"to\":[\"budget@to.example\"],\"text\":\"small\"}");
            assertThat(small.statusCode()).as(small.body()).isEqualTo(202);
        }
        // The two cut-off bodies gave their shares back: a large one is read again (and refused as the
        // broken JSON it is, not for want of room).
        HttpResponse<String> again = post("/api/mails", HttpRequest.BodyPublishers.ofByteArray(
                "x".repeat(large).getBytes(StandardCharsets.US_ASCII)));
        Problems.assertProblem(again, 400, "");
        assertThat(QueueApi.storedMails()).as("only the small mail stored").isEqualTo(stored + 1);
    }

    /** Sends a request's head and the start of its body, and leaves the rest unsent. */
    private static Socket startBody(String head) throws IOException {
        Socket socket = new Socket("127.0.0.1", Integer.parseInt(System.getProperty("it.http.port", "9181")));
        OutputStream out = socket.getOutputStream();
        out.write((head.replace("\n", "\r\n") + "\r\n\r\n{\"from\":").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return socket;
    }

    private static HttpResponse<String> post(String path, HttpRequest.BodyPublisher body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(QueueApi.BASE + path))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", TestUser.SENDER.basic())
                .header("Content-Type", "application/json")
                .POST(body).build(), HttpResponse.BodyHandlers.ofString());
    }
}
