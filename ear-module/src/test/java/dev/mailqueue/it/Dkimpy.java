package dev.mailqueue.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * DKIM verification by dkimpy (Debian {@code python3-dkim}), through {@code src/test/dkim/dkimpy-verify.py}: an
 * implementation in another language that shares no code with Apache James jDKIM, the library the queue signs with,
 * so a canonicalisation or hashing fault common to signer and verifier cannot pass unseen. The key record is given to
 * it for one DNS name; it asks no DNS.
 */
final class Dkimpy {

    /** Debian's interpreter, where {@code python3-dkim} installs the {@code dkim} module. */
    static final Path PYTHON = Path.of("/usr/bin/python3");

    static final Path SCRIPT = Path.of("src/test/dkim/dkimpy-verify.py");

    private Dkimpy() {
    }

    /** @return whether dkimpy can be run here ({@code apt-get install python3-dkim}; {@code .ci/run} installs it) */
    static boolean installed() {
        if (!Files.isExecutable(PYTHON)) {
            return false;
        }
        try {
            Process process = new ProcessBuilder(PYTHON.toString(), "-c", "import dkim").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * dkimpy's verdict on a message's DKIM signatures.
     *
     * @param exit   0 every signature verified, 1 one failed, 2 the message has none
     * @param output one line per signature ({@code pass d/s} or {@code fail d/s: reason}), then dkimpy's log
     */
    record Verdict(int exit, String output) {

        /** @return whether the message has signatures and every one verified */
        boolean passed() {
            return exit == 0;
        }

        @Override
        public String toString() {
            return "dkimpy exit " + exit + ":\n" + output;
        }
    }

    /**
     * @param message the message's bytes as received (CRLF line ends)
     * @param dnsName the key's name, {@code selector._domainkey.domain}
     * @param record  its TXT record ({@code v=DKIM1; k=rsa; p=...})
     * @return dkimpy's verdict
     * @throws IOException when dkimpy cannot be run or does not answer within 30 s
     */
    static Verdict verify(byte[] message, String dnsName, String record) throws IOException {
        Process process = new ProcessBuilder(PYTHON.toString(), SCRIPT.toString(), dnsName, record)
                .redirectErrorStream(true).start();
        try (OutputStream in = process.getOutputStream()) {
            in.write(message);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("dkimpy did not answer within 30 s: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new Verdict(process.exitValue(), output.strip());
    }
}
