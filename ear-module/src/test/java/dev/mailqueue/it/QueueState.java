package dev.mailqueue.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a test compares before and after requests that must change nothing: every row of the queue's
 * tables (the probe's digest, taken when the dispatcher has nothing to do), and the test server's log
 * ({@code messages.log}, or WildFly's {@code server.log}), read from where it was when the test began.
 */
final class QueueState {

    /** The test server's log: Liberty's messages.log, or WildFly's server.log (the build sets it.server.log). */
    static final Path LOG = System.getProperty("it.server.log") != null ? Path.of(System.getProperty("it.server.log"))
            : Path.of(System.getProperty("it.wlp.home", "target/liberty/wlp"), "usr", "servers",
            QueueServerIT.SERVER_NAME, "logs", "messages.log");

    private QueueState() {
    }

    /**
     * Waits (at most 10 seconds) until no mail is due or leased within 15 minutes, so the dispatcher
     * changes nothing; mails of earlier tests that stay busy longer (a rate-limited account's backlog, a
     * retry a few minutes off, say) are left out of the comparison. The wait only lets mails in flight
     * finish, so that fewer are left out: whatever is still busy after it is returned and left out.
     *
     * @return the ids of the mails still busy, to leave out of {@link #digest}
     */
    static String awaitQuiet() {
        try {
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(500))
                    .until(() -> QueueApi.get("/probe/db?op=busy").body().strip(), String::isEmpty);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // compared without them
        }
        return QueueApi.get("/probe/db?op=busy").body().strip();
    }

    /**
     * @param excluded mail ids to leave out (with their attempts, parts and recipients), comma separated
     * @return one line per queue table: name, rows and a hash over every column of every row
     */
    static String digest(String excluded) {
        var response = QueueApi.get("/probe/db?op=digest&exclude=" + excluded);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    /** @return the log's length now, where {@link #logSince} starts */
    static long logMark() {
        try {
            return Files.size(LOG);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the lines the server logged since {@code mark} */
    static List<String> logSince(long mark) {
        try {
            byte[] all = Files.readAllBytes(LOG);
            String added = new String(all, (int) Math.min(mark, all.length), (int) Math.max(0, all.length - mark),
                    StandardCharsets.UTF_8);
            return added.lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
