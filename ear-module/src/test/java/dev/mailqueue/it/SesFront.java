package dev.mailqueue.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What stands between the queue's SES account and the SES emulator ({@link LocalSes}) in the tests: an HTTP front on
 * {@code it.ses.port} that passes each request on to the emulator and its answer back, and keeps the raw message of
 * every {@code SendEmail} it saw. For the faults of the tests it can instead refuse connections ({@link #refuse()}),
 * pass a request on and lose the emulator's answer ({@link Mode#LOSE_ANSWER}: the client waits in vain, as when the
 * network fails after the request went out), or answer the next requests itself with an error in the shape SES's
 * JSON protocol gives it ({@link #answerNext}: the status, the {@code x-amzn-ErrorType} header and a
 * {@code {"message": ...}} body), since the emulator never throttles and never rejects a well-formed message.
 */
final class SesFront implements AutoCloseable {

    /** What the front does with the next request. */
    enum Mode { PASS, LOSE_ANSWER }

    private static final Set<String> NOT_PASSED = Set.of("host", "content-length", "connection", "expect",
            "transfer-encoding", "upgrade");

    private final int port;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ses-front");
        t.setDaemon(true);
        return t;
    });
    private final List<byte[]> rawMessages = new CopyOnWriteArrayList<>();
    private final AtomicInteger lost = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private volatile Mode mode = Mode.PASS;
    private volatile int cannedLeft;
    private volatile int cannedStatus;
    private volatile String cannedType;
    private volatile String cannedMessage;
    private HttpServer server;

    SesFront(int port) throws IOException {
        this.port = port;
        listen();
    }

    /** Listens (again) on the port. */
    synchronized void listen() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Stops listening: connections are refused until {@link #listen()}. */
    synchronized void refuse() {
        server.stop(0);
    }

    /** @param mode what to do with the requests from now on */
    void mode(Mode mode) {
        this.mode = mode;
    }

    /**
     * Answers the next {@code count} requests itself, without passing them on.
     *
     * @param count   how many
     * @param status  the HTTP status, e.g. 429
     * @param type    the SES error code, e.g. {@code TooManyRequestsException}
     * @param message its message
     */
    void answerNext(int count, int status, String type, String message) {
        cannedStatus = status;
        cannedType = type;
        cannedMessage = message;
        cannedLeft = count;
    }

    /** @return how many answers were lost so far ({@link Mode#LOSE_ANSWER}) */
    int answersLost() {
        return lost.get();
    }

    /** @return how many requests were answered by the front itself so far ({@link #answerNext}) */
    int answeredHere() {
        return answered.get();
    }

    /** @return the raw message of every {@code SendEmail} request seen, oldest first, as the queue sent it */
    List<byte[]> rawMessages() {
        return List.copyOf(rawMessages);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            keepRaw(body);
            synchronized (this) {
                if (cannedLeft > 0) {
                    cannedLeft--;
                    answered.incrementAndGet();
                    byte[] error = Json.createObjectBuilder().add("message", cannedMessage).build().toString()
                            .getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().add("Content-Type", "application/json");
                    exchange.getResponseHeaders().add("x-amzn-ErrorType", cannedType);
                    exchange.sendResponseHeaders(cannedStatus, error.length);
                    exchange.getResponseBody().write(error);
                    return;
                }
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + LocalSes.PORT
                    + exchange.getRequestURI())).timeout(Duration.ofSeconds(10))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!NOT_PASSED.contains(name.toLowerCase(Locale.ROOT))) {
                    values.forEach(v -> request.header(name, v));
                }
            });
            HttpResponse<byte[]> answer;
            try {
                answer = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (mode == Mode.LOSE_ANSWER) {
                lost.incrementAndGet();
                sleep(Duration.ofSeconds(5)); // longer than the queue waits (mailqueue.ses.timeout.ms): it gives up
                return; // closed without an answer
            }
            answer.headers().firstValue("Content-Type").ifPresent(t -> exchange.getResponseHeaders().add("Content-Type", t));
            exchange.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer.body());
            }
        }
    }

    /** Keeps the raw message of a SendEmail request body ({@code Content.Raw.Data}, base64). */
    private void keepRaw(byte[] body) {
        if (body.length == 0 || body[0] != '{') {
            return;
        }
        try (InputStream in = new ByteArrayInputStream(body); JsonReader reader = Json.createReader(in)) {
            JsonObject request = reader.readObject();
            JsonObject content = request.getJsonObject("Content");
            if (content != null && content.getJsonObject("Raw") != null) {
                rawMessages.add(Base64.getDecoder().decode(content.getJsonObject("Raw").getString("Data")));
            }
        } catch (IOException | RuntimeException notSendEmail) {
            // another request
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
