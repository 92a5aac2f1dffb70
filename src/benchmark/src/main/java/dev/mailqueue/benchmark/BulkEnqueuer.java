package dev.mailqueue.benchmark;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Enqueues mails through {@code POST /api/mails/batch}: either as fast as it goes, a batch per
 * request over a few concurrent HTTP/1.1 connections (one thread each, each sending its next batch
 * when the last one was answered), or one mail at a time through {@code POST /api/mails}. Request bodies are built
 * before the clock starts; every mail of a batch is different, and all batches carry the same mails
 * (the server gives each its own id and Message-ID).
 */
public final class BulkEnqueuer {

    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");

    /** HTTP Basic for the run profile's user sender/sender (run.sh allows it to send as @mailqueue.test). */
    private static final String AUTHORIZATION = "Basic " + java.util.Base64.getEncoder()
            .encodeToString("sender:sender".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    private final URI batchUri;
    private final URI singleUri;
    private final int connections;
    private final HttpClient http;

    /**
     * @param apiUrl      the mails resource, e.g. {@code http://localhost:9080/api/mails}
     * @param connections concurrent requests, 1 or more
     */
    public BulkEnqueuer(String apiUrl, int connections) {
        this.batchUri = URI.create(apiUrl + "/batch");
        this.singleUri = URI.create(apiUrl);
        this.connections = connections;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /**
     * What one bulk enqueue did.
     *
     * @param mails            mails queued (the server answered 202 for all)
     * @param elapsedNanos     from the first request sent to the last answer read
     * @param requestMillisP50 median time of one batch request
     * @param requestMillisMax longest batch request
     */
    public record Result(int mails, long elapsedNanos, double requestMillisP50, double requestMillisMax) {

        /** @return mails per second over the whole enqueue */
        public double mailsPerSecond() {
            return mails / (elapsedNanos / 1e9);
        }
    }

    /**
     * @param tag       first word of every mail's subject
     * @param mails     how many mails to enqueue
     * @param batchSize mails per request, 1..1000
     * @param notBefore when the mails become due, or null for at once
     * @return the figures of the run
     * @throws IOException          when a request fails or is not answered with 202 and one receipt per mail
     * @throws InterruptedException when interrupted while waiting for an answer
     */
    public Result enqueue(String tag, int mails, int batchSize, Instant notBefore)
            throws IOException, InterruptedException {
        return enqueue(tag, mails, batchSize, notBefore, false);
    }

    /**
     * @param tag       first word of every mail's subject
     * @param mails     how many mails to enqueue
     * @param batchSize mails per request
     * @param notBefore when the mails become due, or null for at once
     * @param templated true to send each mail as a reference to the template {@value TestMail#TEMPLATE} with its
     *                  variables, rendered by the server into the same mail
     * @return the figures of the run
     * @throws IOException          when a request fails or is not answered with 202 and one receipt per mail
     * @throws InterruptedException when interrupted while waiting for an answer
     */
    public Result enqueue(String tag, int mails, int batchSize, Instant notBefore, boolean templated)
            throws IOException, InterruptedException {
        int batches = (mails + batchSize - 1) / batchSize;
        int lastSize = mails - (batches - 1) * batchSize;
        byte[] fullBody = templated ? TestMail.templatedBatchJson(tag, batchSize, notBefore)
                : TestMail.batchJson(tag, batchSize, notBefore);
        byte[] lastBody = lastSize == batchSize ? fullBody : templated ? TestMail.templatedBatchJson(tag, lastSize, notBefore)
                : TestMail.batchJson(tag, lastSize, notBefore);

        AtomicInteger next = new AtomicInteger();
        long[] requestNanos = new long[batches];
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        try {
            List<Future<Void>> workers = new ArrayList<>();
            long start = System.nanoTime();
            for (int c = 0; c < connections; c++) {
                workers.add(pool.submit(() -> {
                    for (int b = next.getAndIncrement(); b < batches; b = next.getAndIncrement()) {
                        boolean last = b == batches - 1;
                        long begun = System.nanoTime();
                        post(last ? lastBody : fullBody, last ? lastSize : batchSize);
                        requestNanos[b] = System.nanoTime() - begun;
                    }
                    return null;
                }));
            }
            for (Future<Void> worker : workers) {
                await(worker);
            }
            long elapsed = System.nanoTime() - start;
            Arrays.sort(requestNanos);
            return new Result(mails, elapsed,
                    requestNanos[(batches - 1) / 2] / 1e6, requestNanos[batches - 1] / 1e6);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Enqueues one mail, due at once, through {@code POST /api/mails}.
     *
     * @param tag first word of its subject
     * @return its id
     * @throws IOException          when the request fails or is not answered with 202
     * @throws InterruptedException when interrupted while waiting for the answer
     */
    public long enqueueOne(String tag) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(singleUri)
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", AUTHORIZATION)
                .POST(HttpRequest.BodyPublishers.ofByteArray(TestMail.singleJson(tag)))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        Matcher id = ID.matcher(response.body());
        if (response.statusCode() != 202 || !id.find()) {
            throw new IOException("POST " + singleUri + " answered " + response.statusCode() + ": " + abbreviate(response.body()));
        }
        return Long.parseLong(id.group(1));
    }

    /**
     * Stores the benchmark's template ({@link TestMail#TEMPLATE_JSON}) as the run profile's admin.
     *
     * @throws IOException          when the server does not answer 200 or 201
     * @throws InterruptedException when interrupted while waiting for the answer
     */
    public void storeTemplate() throws IOException, InterruptedException {
        URI uri = singleUri.resolve("/api/admin/templates/" + TestMail.TEMPLATE);
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Authorization", "Basic " + java.util.Base64.getEncoder()
                        .encodeToString("admin:admin".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .PUT(HttpRequest.BodyPublishers.ofString(TestMail.TEMPLATE_JSON))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 && response.statusCode() != 201) {
            throw new IOException("PUT " + uri + " answered " + response.statusCode() + ": " + abbreviate(response.body()));
        }
    }

    /** Sends one batch and checks the answer: 202 with one receipt (an id) per mail. */
    private void post(byte[] body, int expected) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(batchUri)
                .timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .header("Authorization", AUTHORIZATION)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) {
            throw new IOException("POST " + batchUri + " answered " + response.statusCode() + ": "
                    + abbreviate(response.body()));
        }
        Matcher id = ID.matcher(response.body());
        int count = 0;
        while (id.find()) {
            count++;
        }
        if (count != expected) {
            throw new IOException("POST " + batchUri + " returned " + count + " receipts for " + expected + " mails");
        }
    }

    private static void await(Future<Void> worker) throws IOException, InterruptedException {
        try {
            worker.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("enqueue failed", e.getCause());
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 500 ? text : text.substring(0, 500) + "...";
    }
}
