package dev.mailqueue.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A second Liberty server beside the Arquillian-managed one, set up and run by the test that needs it:
 * named as the test server plus {@code 2} ({@code mailqueue-it2}) in the same runtime, with the
 * configuration the build prepared in {@code target/it2-server-config} (the test server's, on other
 * ports), the same bootstrap properties (so the same database), the same EAR, and optionally more
 * configuration of the test's own (e.g. an SMTP account only it has, or the database behind a proxy).
 * Created, started and stopped with Liberty's own {@code server} script; {@link #kill()} ends its JVM as
 * a crash would (SIGKILL). Each test gets the server created afresh, but for the caches and generated keys
 * of the last run (see {@link #prepare}). Its JVM compiles with C1 alone ({@code src/test/liberty-second/jvm.options}):
 * a server that lives for one test starts and drains faster without the C2 compiler's threads.
 */
final class SecondServer implements AutoCloseable {

    static final String NAME = QueueServerIT.SERVER_NAME + "2";
    static final String BASE = "http://localhost:" + System.getProperty("it.second.http.port", "9182");
    static final String HTTPS_BASE = "https://localhost:" + System.getProperty("it.second.https.port", "9544");

    /** What {@link #prepare} keeps of the last run, relative to the server directory. */
    private static final List<String> KEPT = List.of("workarea", "resources/security");

    /** The test configuration's key store password, as its overrides set it. */
    private static final Pattern KEYSTORE_PASSWORD = Pattern.compile("<variable name=\"mailqueue.keystore.password\"[^>]*>");

    /** In the server directory of a run with the test configuration's key store password: its keys may be kept. */
    private static final String WARM_MARK = ".mailqueue-it-warm";

    /** True between {@link #kill()} and the next {@link #restart()}: there is nothing to stop. */
    private boolean killed;

    private SecondServer() {
    }

    /** Creates and starts the server with the shared test configuration only. */
    static SecondServer start() throws IOException, InterruptedException {
        return start("");
    }

    /**
     * Creates the server afresh (whatever an earlier run left is deleted first, but for its caches and keys),
     * configures and deploys it, starts it, and waits until its REST API answers.
     *
     * @param extraConfig server.xml elements (inside {@code <server>}) for configDropins/overrides, or empty
     */
    static SecondServer start(String extraConfig) throws IOException, InterruptedException {
        prepare(extraConfig, null);
        SecondServer server = new SecondServer();
        server.restart();
        return server;
    }

    /**
     * Creates and starts the server as {@link #start()} does, but with its test overrides
     * ({@code configDropins/overrides/integration-tests.xml}) edited first, e.g. a secret taken out; waits
     * only until the queue application has started or failed to start, as its log says.
     *
     * @param editOverrides turns the overrides' text into the text the server gets
     * @return the running server; its log is {@link #log()}
     */
    static SecondServer startEdited(UnaryOperator<String> editOverrides) throws IOException, InterruptedException {
        prepare("", editOverrides);
        run("start");
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                .until(() -> Files.readString(log()).matches("(?s).*CWWKZ000[12][IE]: .*mailqueue.*"));
        return new SecondServer();
    }

    /** @return the server's messages.log */
    static Path log() {
        return Path.of(System.getProperty("it.wlp.home"), "usr", "servers", NAME, "logs", "messages.log");
    }

    private static void prepare(String extraConfig, UnaryOperator<String> editOverrides)
            throws IOException, InterruptedException {
        Path servers = Path.of(System.getProperty("it.wlp.home"), "usr", "servers");
        Path dir = servers.resolve(NAME);
        Path config = Path.of(System.getProperty("it.second.config"));
        String builtOverrides = Files.readString(config.resolve("configDropins/overrides/integration-tests.xml"));
        String overrides = editOverrides == null ? builtOverrides : editOverrides.apply(builtOverrides);
        // Kept from the last run, if it had the key store password of the test configuration: Liberty's
        // workarea (its OSGi framework and feature caches) and the HTTPS key and LTPA keys it generated. A
        // start without them rebuilds them, about 7 s more. A run whose overrides lack that password (or
        // change it) neither uses nor leaves anything to keep.
        Matcher password = KEYSTORE_PASSWORD.matcher(builtOverrides);
        boolean sameKeys = password.find() && overrides.contains(password.group());
        Path kept = servers.resolve(NAME + ".kept");
        deleteTree(kept);
        if (sameKeys && Files.exists(dir.resolve(WARM_MARK))) {
            for (String part : KEPT) {
                if (Files.isDirectory(dir.resolve(part))) {
                    Files.createDirectories(kept.resolve(part).getParent());
                    Files.move(dir.resolve(part), kept.resolve(part));
                }
            }
        }
        deleteTree(dir);
        run("create");
        for (String part : KEPT) {
            if (Files.isDirectory(kept.resolve(part))) {
                deleteTree(dir.resolve(part));
                Files.createDirectories(dir.resolve(part).getParent());
                Files.move(kept.resolve(part), dir.resolve(part));
            }
        }
        deleteTree(kept);
        if (sameKeys) {
            Files.writeString(dir.resolve(WARM_MARK), "what this run generates may be kept for the next\n");
        }
        copyTree(config, dir);
        Files.copy(servers.resolve(QueueServerIT.SERVER_NAME).resolve("bootstrap.properties"), dir.resolve("bootstrap.properties"),
                StandardCopyOption.REPLACE_EXISTING);
        Path overridesDir = dir.resolve("configDropins").resolve("overrides");
        if (!extraConfig.isBlank()) {
            Files.createDirectories(overridesDir);
            Files.writeString(overridesDir.resolve("test-extra.xml"), "<server>\n" + extraConfig + "\n</server>\n");
        }
        Files.writeString(overridesDir.resolve("integration-tests.xml"), overrides);
        Files.createDirectories(dir.resolve("apps"));
        Files.copy(Path.of(System.getProperty("it.ear")), dir.resolve("apps").resolve("mailqueue.ear"),
                StandardCopyOption.REPLACE_EXISTING);
        // server.xml configures apps/mailqueue.ear, with its role mapping.
    }

    /** Starts the (created, stopped or killed) server and waits until its REST API answers. */
    void restart() throws IOException, InterruptedException {
        run("start");
        killed = false;
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> {
                    HttpResponse<String> answer = QueueApi.getFrom(BASE, "/api/mails/1");
                    return answer.headers().firstValue("Content-Type").orElse("").contains("json");
                });
    }

    /** Ends the server's JVM at once (SIGKILL), as a crash or an OOM killer would: nothing is shut down. */
    void kill() throws InterruptedException {
        List<ProcessHandle> jvms = ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(c -> c.contains("ws-server.jar") && c.contains(" " + NAME)).orElse(false))
                .toList();
        if (jvms.isEmpty()) {
            throw new IllegalStateException("no JVM of server " + NAME + " to kill");
        }
        for (ProcessHandle jvm : jvms) {
            jvm.destroyForcibly();
            jvm.onExit().join();
        }
        killed = true;
        Thread.sleep(500); // the kernel frees the listening ports
    }

    /** Stops the server, unless it was killed and not started again. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (!killed) {
            run("stop");
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            try (Stream<Path> old = Files.walk(dir)) {
                old.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            paths.forEach(source -> {
                Path target = to.resolve(from.relativize(source).toString());
                try {
                    if (Files.isDirectory(source)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static void run(String action) throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("it.wlp.home"), "bin", "server");
        Process process = new ProcessBuilder(script.toString(), action, NAME).inheritIO().start();
        if (!process.waitFor(3, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException("server " + action + " " + NAME + " failed");
        }
    }
}
