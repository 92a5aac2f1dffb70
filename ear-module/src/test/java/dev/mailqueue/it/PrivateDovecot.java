package dev.mailqueue.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The private Dovecot submission server of the OAuth2 account tests (src/test/dovecot/dovecot-instance.sh): a real
 * SMTP submission server on {@link #PORT} that takes SASL {@code XOAUTH2} logins only, checks each token by RFC 7662
 * introspection at the tests' authorization server, and relays the mail to the test's {@link SmtpCatcher}. Needs
 * Debian's {@code dovecot-core} and {@code dovecot-submissiond} and root; {@link #start} skips the calling test
 * class without them.
 */
final class PrivateDovecot {

    /** The submission port (property {@code it.dovecot.port}). */
    static final int PORT = Integer.getInteger("it.dovecot.port", 3140);

    private static final Path SCRIPT = Path.of(System.getProperty("it.dovecot.script", "../src/test/dovecot/dovecot-instance.sh"));
    private static final Path DIR = Path.of(System.getProperty("it.dovecot.dir", "/tmp/mailqueue-it-dovecot"));

    private PrivateDovecot() {
    }

    /**
     * Starts the instance (stopping one that runs in its directory first), or skips the test class when Dovecot or
     * root is missing.
     *
     * @param introspection the introspection endpoint, with HTTP Basic credentials in its userinfo
     * @param userClaim     the claim of the introspection answer that must equal the user logging in
     */
    static void start(String introspection, String userClaim) throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/dovecot")), "Debian's dovecot-core is not installed");
        assumeTrue(Files.exists(Path.of("/usr/lib/dovecot/submission")), "Debian's dovecot-submissiond is not installed");
        assumeTrue("root".equals(System.getProperty("user.name")), "a private Dovecot instance must be started as root");
        run("start", DIR.toAbsolutePath().toString(), Integer.toString(PORT), Integer.toString(SmtpCatcher.PORT),
                introspection, userClaim);
    }

    /** Stops the instance, if one was started: its SMTP connections close. */
    static void stop() throws IOException, InterruptedException {
        if (Files.isDirectory(DIR)) {
            run("stop", DIR.toAbsolutePath().toString());
        }
    }

    /** @return everything the instance logged so far (its own log file, one line per event) */
    static String log() throws IOException {
        Path log = DIR.resolve("dovecot.log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    private static void run(String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 2];
        command[0] = "bash";
        command[1] = SCRIPT.toAbsolutePath().toString();
        System.arraycopy(args, 0, command, 2, args.length);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("dovecot-instance.sh %s", args[0]).isTrue();
        assertThat(process.exitValue()).as("dovecot-instance.sh %s: %s", args[0], output).isZero();
    }
}
