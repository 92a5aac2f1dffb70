package dev.mailqueue.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The private Postfix instance of the bounce and address tests (src/test/postfix/postfix-instance.sh): a
 * real MTA on {@link #PORT} that relays to the test's {@link SmtpCatcher} and keeps the mail of
 * {@code mailqueue.test} in its own Maildir ({@link #maildir()}). Needs Debian's {@code postfix} and root;
 * {@link #start()} skips the calling test class without them.
 */
final class PrivatePostfix {

    /** The SMTP port it listens on (property {@code it.postfix.port}). */
    static final int PORT = Integer.getInteger("it.postfix.port", 3133);
    /** Its second SMTP port, whose EHLO answer lacks SMTPUTF8 (property {@code it.postfix.ascii.port}). */
    static final int ASCII_PORT = Integer.getInteger("it.postfix.ascii.port", 3136);

    private static final Path SCRIPT = Path.of(System.getProperty("it.postfix.script", "../src/test/postfix/postfix-instance.sh"));
    private static final Path DIR = Path.of(System.getProperty("it.postfix.dir", "/tmp/mailqueue-it-postfix"));

    private PrivatePostfix() {
    }

    /** Starts the instance (from a fresh directory), or skips the test class when Postfix or root is missing. */
    static void start() throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/postfix")), "Debian's postfix is not installed");
        assumeTrue("root".equals(System.getProperty("user.name")), "a private Postfix instance must be started as root");
        run("start", DIR.toAbsolutePath().toString(), Integer.toString(PORT), Integer.toString(SmtpCatcher.PORT),
                Integer.toString(ASCII_PORT));
    }

    /**
     * Starts a second instance whose relay host is the queue's SMTP submission listener, logging in there as
     * {@code user} over STARTTLS (SASL PLAIN); skips the test without Postfix or root.
     *
     * @param dir    its directory
     * @param listen the port it takes mail on, from loopback clients without login
     * @param relay  the submission port
     * @param user   who it logs in as
     */
    static void startSubmissionRelay(Path dir, int listen, int relay, TestUser user)
            throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/postfix")), "Debian's postfix is not installed");
        assumeTrue("root".equals(System.getProperty("user.name")), "a private Postfix instance must be started as root");
        run(Map.of("RELAY_SASL_USER", user.name(), "RELAY_SASL_PASSWORD", user.password()), "start",
                dir.toAbsolutePath().toString(), Integer.toString(listen), Integer.toString(relay));
    }

    /** Stops the instance in {@code dir}, if one was started there. */
    static void stop(Path dir) throws IOException, InterruptedException {
        if (Files.isDirectory(dir)) {
            run(Map.of(), "stop", dir.toAbsolutePath().toString());
        }
    }

    /** Stops the instance, if it was started. */
    static void stop() throws IOException, InterruptedException {
        if (Files.isDirectory(DIR)) {
            run("stop", DIR.toAbsolutePath().toString());
        }
    }

    /** @return the Maildir where Postfix delivers the mail of {@code mailqueue.test}, new messages */
    static Path maildir() {
        return DIR.resolve("mail/maildir/new");
    }

    private static void run(String... args) throws IOException, InterruptedException {
        run(Map.of(), args);
    }

    private static void run(Map<String, String> environment, String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 2];
        command[0] = "bash";
        command[1] = SCRIPT.toAbsolutePath().toString();
        System.arraycopy(args, 0, command, 2, args.length);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("postfix-instance.sh %s", args[0]).isTrue();
        assertThat(process.exitValue()).as("postfix-instance.sh %s: %s", args[0], output).isZero();
    }
}
