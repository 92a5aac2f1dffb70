package dev.mailqueue.benchmark;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The memory benchmark's load (issue 16): for a while, several senders post the largest single mail the
 * API accepts, each its next one as soon as the last was answered, while one more sender enqueues an
 * ordinary small mail every second. Then it waits until every ordinary mail is SENT and prints what
 * happened: answers by status code, request times, and how long the ordinary mails took from enqueue to
 * SENT. Whether the server ran out of heap is for {@code memory.sh} to tell, from the server's log and
 * its heap figures.
 *
 * <p>Arguments ({@code --name=value}): {@code api-url} (the mails resource), {@code senders} (8),
 * {@code seconds} (120), {@code drain-seconds} (600, how long to wait for the ordinary mails),
 * {@code attachment-bytes} (10485760, the default {@code mailqueue.attachments.max-total-bytes}),
 * {@code body-chars} (1048576, {@code MailLimits.BODY_CHARS}, for the text and, less what the
 * request limit leaves no room for, the HTML body), {@code request-bytes} (16777216, the default
 * {@code mailqueue.http.max-request-bytes}).
 */
public final class MemoryLoad {

    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");
    private static final Pattern STATUS = Pattern.compile("\"status\"\\s*:\\s*\"([A-Z_]+)\"");
    private static final String AUTHORIZATION = "Basic " + Base64.getEncoder()
            .encodeToString("sender:sender".getBytes(StandardCharsets.UTF_8));

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final Map<Integer, AtomicLong> answers = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> largeMillis = new ConcurrentLinkedQueue<>();
    private final AtomicLong largeBytes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    private MemoryLoad() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when the server cannot be reached at all or an ordinary mail is refused
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new TreeMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            options.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        URI api = URI.create(options.getOrDefault("api-url", "http://localhost:9080/api/mails"));
        int senders = Integer.parseInt(options.getOrDefault("senders", "8"));
        int seconds = Integer.parseInt(options.getOrDefault("seconds", "120"));
        int drainSeconds = Integer.parseInt(options.getOrDefault("drain-seconds", "600"));
        int attachmentBytes = Integer.parseInt(options.getOrDefault("attachment-bytes", "10485760"));
        int bodyChars = Integer.parseInt(options.getOrDefault("body-chars", "1048576"));
        int requestBytes = Integer.parseInt(options.getOrDefault("request-bytes", "16777216"));
        System.exit(new MemoryLoad().run(api, senders, seconds, drainSeconds,
                largestMail(attachmentBytes, bodyChars, requestBytes)) ? 0 : 1);
    }

    /**
     * The largest mail one {@code POST /api/mails} may carry: one attachment of the whole attachment
     * allowance (base64 in JSON, a third larger), a text body of the full length, and an HTML body as
     * long as the request limit leaves room for.
     */
    static byte[] largestMail(int attachmentBytes, int bodyChars, int requestBytes) {
        byte[] file = new byte[attachmentBytes];
        new java.util.Random(16).nextBytes(file);
        String head = "{\"from\":\"memory@mailqueue.test\",\"to\":[\"large@mailqueue.test\"],\"subject\":\"large\","
                + "\"attachments\":[{\"filename\":\"large.bin\",\"contentType\":\"application/octet-stream\","
                + "\"content\":\"" + Base64.getEncoder().encodeToString(file) + "\"}],\"text\":\"" + "t".repeat(bodyChars)
                + "\",\"html\":\"";
        String tail = "\"}";
        int room = Math.min(bodyChars, requestBytes - head.length() - tail.length() - 64);
        return (head + "h".repeat(Math.max(0, room)) + tail).getBytes(StandardCharsets.US_ASCII);
    }

    private boolean run(URI api, int senders, int seconds, int drainSeconds, byte[] large) throws Exception {
        System.out.printf("largest request: %,d bytes; %d senders for %d s, one ordinary mail a second%n",
                large.length, senders, seconds);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < senders; i++) {
            threads.add(startThread("large-" + i, () -> sendLarge(api, large, end)));
        }
        List<Long> ordinary = new ArrayList<>();
        Map<Long, Instant> enqueuedAt = new TreeMap<>();
        int refused = 0;
        while (System.nanoTime() < end) {
            long started = System.nanoTime();
            HttpResponse<String> answer = post(api, ("{\"from\":\"memory@mailqueue.test\",\"to\":[\"ordinary@mailqueue.test\"],"
                    + "\"subject\":\"ordinary " + ordinary.size() + "\",\"text\":\"queued during the memory load\"}")
                    .getBytes(StandardCharsets.UTF_8));
            Matcher id = ID.matcher(answer.body());
            if (answer.statusCode() == 202 && id.find()) {
                long mail = Long.parseLong(id.group(1));
                ordinary.add(mail);
                enqueuedAt.put(mail, Instant.now());
            } else {
                refused++;
                System.out.printf("ordinary mail answered %d: %s%n", answer.statusCode(), answer.body());
            }
            Thread.sleep(Math.max(0, 1000 - (System.nanoTime() - started) / 1_000_000));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        List<Long> latencies = new ArrayList<>();
        long drainEnd = System.nanoTime() + drainSeconds * 1_000_000_000L;
        List<Long> waiting = new ArrayList<>(ordinary);
        while (!waiting.isEmpty() && System.nanoTime() < drainEnd) {
            for (var it = waiting.iterator(); it.hasNext(); ) {
                long mail = it.next();
                HttpResponse<String> view = http.send(HttpRequest.newBuilder(URI.create(api + "/" + mail))
                        .header("Authorization", AUTHORIZATION).GET().build(), HttpResponse.BodyHandlers.ofString());
                Matcher status = STATUS.matcher(view.body());
                if (status.find() && status.group(1).equals("SENT")) {
                    latencies.add(Duration.between(enqueuedAt.get(mail), Instant.now()).toMillis());
                    it.remove();
                }
            }
            Thread.sleep(500);
        }
        report(ordinary.size(), refused, waiting.size(), latencies);
        return refused == 0 && waiting.isEmpty() && failures.get() == 0;
    }

    private static Thread startThread(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.start();
        return thread;
    }

    private void sendLarge(URI api, byte[] large, long end) {
        while (System.nanoTime() < end) {
            long started = System.nanoTime();
            try {
                HttpResponse<String> answer = post(api, large);
                answers.computeIfAbsent(answer.statusCode(), code -> new AtomicLong()).incrementAndGet();
                largeMillis.add((System.nanoTime() - started) / 1_000_000);
                if (answer.statusCode() == 202) {
                    largeBytes.addAndGet(large.length);
                } else if (answers.get(answer.statusCode()).get() == 1) {
                    System.out.printf("large mail answered %d: %s%n", answer.statusCode(),
                            answer.body().substring(0, Math.min(300, answer.body().length())));
                }
            } catch (IOException e) {
                failures.incrementAndGet();
                System.out.println("large mail: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private HttpResponse<String> post(URI api, byte[] body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(api).timeout(Duration.ofMinutes(5))
                .header("Authorization", AUTHORIZATION).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private void report(int ordinary, int refused, int unsent, List<Long> latencies) {
        List<Long> times = new ArrayList<>(largeMillis);
        times.sort(null);
        latencies.sort(null);
        System.out.println("=== memory load ===");
        System.out.printf("large requests       %s, %d I/O failures; %,d MB accepted; request p50 %d ms, max %d ms%n",
                new TreeMap<>(answers), failures.get(), largeBytes.get() / 1_000_000,
                times.isEmpty() ? 0 : times.get(times.size() / 2), times.isEmpty() ? 0 : times.get(times.size() - 1));
        System.out.printf("ordinary mails       %d enqueued, %d refused, %d not SENT in time; enqueue -> SENT p50 %d ms, max %d ms%n",
                ordinary, refused, unsent, latencies.isEmpty() ? 0 : latencies.get(latencies.size() / 2),
                latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1));
    }
}
