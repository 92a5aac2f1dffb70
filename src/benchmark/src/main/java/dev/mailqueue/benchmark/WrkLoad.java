package dev.mailqueue.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Single requests with {@code wrk} (Debian package {@code wrk}), two threads, a number of keep-alive
 * connections, for a number of seconds: {@code POST /api/mails} of one 1 KB mail due the next day (so
 * nothing is dispatched meanwhile), HTTP Basic as the run profile's {@code sender}; and the
 * unauthenticated {@code GET /health/live}. wrk's output is kept in the run's directory.
 */
final class WrkLoad {

    private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in ");
    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern BAD = Pattern.compile("non-2xx or errors: (\\d+)");

    private final int connections;
    private final int seconds;
    private final Path dir;

    /**
     * @param connections keep-alive connections
     * @param seconds     how long each load runs
     * @param dir         where the scripts and wrk's output go
     */
    WrkLoad(int connections, int seconds, Path dir) {
        this.connections = connections;
        this.seconds = seconds;
        this.dir = dir;
    }

    /**
     * What one wrk run did.
     *
     * @param requests answered requests
     * @param perSecond requests per second
     * @param p50      median latency as wrk prints it (e.g. {@code 31.20ms})
     * @param p99      99th percentile latency as wrk prints it
     * @param bad      answers other than 2xx, and socket errors (-1 when wrk did not say)
     */
    record Result(long requests, double perSecond, String p50, String p99, long bad) {
    }

    /**
     * @param url  the mails resource, e.g. {@code http://localhost:9080/api/mails}
     * @param tag  first word of every mail's subject
     * @param name file name stem for the script and the output
     * @return what wrk saw
     */
    Result postMails(String url, String tag, String name) throws IOException, InterruptedException {
        String tomorrow = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS).toString();
        String body = "{\"from\":\"bench@mailqueue.test\",\"to\":[\"single@mailqueue.test\"],\"subject\":\"" + tag
                + " single\",\"notBefore\":\"" + tomorrow + "\",\"text\":\"" + "x".repeat(1000) + "\"}";
        String script = """
                wrk.method = "POST"
                wrk.headers["Content-Type"] = "application/json"
                wrk.headers["Authorization"] = "Basic %s"
                wrk.body = '%s'
                done = function(summary, latency, requests)
                  local bad = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
                  io.write(string.format("non-2xx or errors: %%d\\n", bad))
                end
                """.formatted(Base64.getEncoder().encodeToString("sender:sender".getBytes(StandardCharsets.UTF_8)), body);
        Path lua = dir.resolve(name + ".lua");
        Files.writeString(lua, script);
        return run(url, lua, name);
    }

    /**
     * @param url  e.g. {@code http://localhost:9080/health/live}
     * @param name file name stem for the output
     * @return what wrk saw
     */
    Result get(String url, String name) throws IOException, InterruptedException {
        return run(url, null, name);
    }

    private Result run(String url, Path script, String name) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("wrk", "-t", "2", "-c", Integer.toString(connections),
                "-d", seconds + "s", "--latency"));
        if (script != null) {
            command.addAll(List.of("-s", script.toString()));
        }
        command.add(url);
        Path output = dir.resolve(name + ".txt");
        Process wrk = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        int status = wrk.waitFor();
        String text = Files.readString(output);
        Matcher requests = REQUESTS.matcher(text);
        Matcher rate = RATE.matcher(text);
        if (status != 0 || !requests.find() || !rate.find()) {
            throw new IOException("wrk failed (exit " + status + "), see " + output + ": " + text.strip());
        }
        Matcher bad = BAD.matcher(text);
        return new Result(Long.parseLong(requests.group(1)), Double.parseDouble(rate.group(1)), percentile(text, "50%"),
                percentile(text, "99%"), bad.find() ? Long.parseLong(bad.group(1)) : -1);
    }

    private static String percentile(String text, String which) {
        Matcher m = Pattern.compile("(?m)^\\s+" + Pattern.quote(which) + "\\s+(\\S+)").matcher(text);
        return m.find() ? m.group(1) : "?";
    }
}
