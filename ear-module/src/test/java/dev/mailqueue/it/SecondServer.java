package dev.mailqueue.it;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * The second Liberty server the build creates beside the Arquillian-managed one ({@code mailqueue-it2}:
 * the same EAR, database and SMTP server, its own ports), started and stopped by the test that needs
 * it with Liberty's own {@code server} script.
 */
final class SecondServer implements AutoCloseable {

    static final String NAME = "mailqueue-it2";
    static final String BASE = "http://localhost:" + System.getProperty("it.second.http.port", "9182");

    private SecondServer() {
    }

    /** Starts the server and waits, at most 3 minutes, until the queue's REST API answers. */
    static SecondServer start() throws IOException, InterruptedException {
        run("start");
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> {
                    HttpResponse<String> answer = QueueApi.getFrom(BASE, "/api/mails/1");
                    return answer.headers().firstValue("Content-Type").orElse("").contains("json");
                });
        return new SecondServer();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("stop");
    }

    private static void run(String action) throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("it.wlp.home"), "bin", "server");
        Process process = new ProcessBuilder(script.toString(), action, NAME).inheritIO().start();
        if (!process.waitFor(3, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException("server " + action + " " + NAME + " failed");
        }
    }
}
