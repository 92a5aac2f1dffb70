package dev.mailqueue.it;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A local Amazon SES v2 endpoint for the SES account tests: the npm package {@code aws-ses-v2-local} ({@value #VERSION}),
 * a third-party emulator of SES's {@code SendEmail} (raw content included) that answers as SES does (a JSON body with
 * {@code MessageId}) and keeps every mail it took, readable at {@code GET /store}. Installed with npm into
 * {@code it.ses.dir} on first use and started with Node.js on {@link #PORT}; {@link #start} skips the calling test
 * class when npm or Node.js is missing. It checks no SigV4 signature (real SES does).
 */
final class LocalSes {

    /** The emulator's version, pinned. */
    static final String VERSION = "2.10.2";
    /** Its port (property {@code it.ses.emulator.port}). */
    static final int PORT = Integer.getInteger("it.ses.emulator.port", 3142);

    private static final Path DIR = Path.of(System.getProperty("it.ses.dir", "/tmp/mailqueue-it-ses-emulator"));
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static Process process;

    private LocalSes() {
    }

    /** Installs the emulator unless it is there, and starts it; skips the test class without npm and Node.js. */
    static void start() throws IOException, InterruptedException {
        assumeTrue(onPath("node") && onPath("npm"), "Node.js and npm are not installed");
        Path cli = DIR.resolve("node_modules/aws-ses-v2-local/dist/cli.js");
        if (!Files.exists(cli)) {
            Files.createDirectories(DIR);
            Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--prefix", DIR.toString(),
                    "aws-ses-v2-local@" + VERSION).redirectErrorStream(true).start();
            String output = new String(npm.getInputStream().readAllBytes());
            assertThat(npm.waitFor(300, TimeUnit.SECONDS)).as("npm install").isTrue();
            assertThat(npm.exitValue()).as("npm install aws-ses-v2-local: %s", output).isZero();
        }
        process = new ProcessBuilder("node", cli.toString(), "--host", "127.0.0.1", "--port", Integer.toString(PORT))
                .redirectErrorStream(true).redirectOutput(DIR.resolve("emulator.log").toFile()).start();
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            try {
                if (get("/health-check").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            assertThat(process.isAlive()).as("the SES emulator runs (%s)", DIR.resolve("emulator.log")).isTrue();
            assertThat(Instant.now()).as("the SES emulator answers within 30 s").isBefore(deadline);
            Thread.sleep(200);
        }
    }

    /** Stops the emulator; what it kept is gone. */
    static void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
            process = null;
        }
    }

    /** @return every mail the emulator took, oldest first, as it keeps them ({@code messageId}, {@code subject}, ...) */
    static List<JsonObject> mails() throws IOException, InterruptedException {
        HttpResponse<String> store = get("/store");
        assertThat(store.statusCode()).as(store.body()).isEqualTo(200);
        try (JsonReader reader = Json.createReader(new StringReader(store.body()))) {
            JsonArray emails = reader.readObject().getJsonArray("emails");
            return emails.getValuesAs(JsonObject.class);
        }
    }

    /** @return the mails the emulator took with this subject */
    static List<JsonObject> withSubject(String subject) throws IOException, InterruptedException {
        return mails().stream().filter(m -> subject.equals(m.getString("subject", null))).toList();
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
