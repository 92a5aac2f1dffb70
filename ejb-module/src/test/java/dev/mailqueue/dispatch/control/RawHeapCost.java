package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.control.RawMessage;
import dev.mailqueue.mime.control.HeaderLimits;
import jakarta.mail.Session;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Benchmark, not a test (src/benchmark/raw-heap.sh runs it): the heap one raw message costs per byte of its input,
 * at enqueue ({@link RawMessage#parse} and {@link RawMessage#stored}) and at sending (the claimer's
 * {@link RawGatedMessage} and its {@code writeTo}), for the shapes a sender can choose: a header section of tiny
 * fields ({@code a:}) up to the caps with a body that fills the message, a header section of full 998-octet lines,
 * and an ordinary message (a few fields, a base64 body). Per shape it prints
 * <ul>
 *   <li>retained: the heap that {@code count} parsed (or composed) messages hold, measured after a full collection,
 *       minus their input's bytes, per input byte (what the work adds to the input the caller already holds);</li>
 *   <li>allocated: the bytes the work allocates per input byte, garbage included (HotSpot's per-thread counter).</li>
 * </ul>
 * and the same figures for the shape the caps now refuse (1 MiB of {@code a:} lines), with the cost of refusing it.
 * Issue 47's target: at most 5 bytes of heap per input byte, the figure {@code mailqueue.http.max-inflight-bytes}
 * assumes.
 */
public final class RawHeapCost {

    private static final int SIZE = 1 << 20;
    private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");

    private RawHeapCost() {
    }

    /**
     * @param args nothing, or the number of messages held at once for the retained figure (default 40)
     * @throws Exception when a message is refused that should not be, or composing fails
     */
    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        HeaderLimits limits = HeaderLimits.DEFAULTS;
        System.out.printf("raw message heap per input byte; %d messages of %,d bytes held at once; limits %d fields,"
                + " %,d header bytes%n", count, SIZE, limits.maxFields(), limits.maxBytes());
        System.out.println("shape                              phase     retained B/B  allocated B/B");
        Session session = Session.getInstance(new Properties());
        for (Shape shape : List.of(tinyFields(limits.maxFields()), longLines(limits.maxBytes()), ordinary())) {
            measure(shape, count, limits, session);
        }
        byte[] refused = ("From: a@shop.example\r\n" + "a:\n".repeat(SIZE / 3) + "\r\nx").getBytes(StandardCharsets.US_ASCII);
        long before = allocated();
        try {
            RawMessage.parse(refused, limits);
            throw new AssertionError("1 MiB of tiny fields was taken");
        } catch (dev.mailqueue.api.InvalidMailException expected) {
            System.out.printf("%-34s refusing  %12s  %13.3f   (%s)%n", "1 MiB of a: fields (over the cap)", "-",
                    (allocated() - before) / (double) refused.length, expected.getErrors().get(0).getMessage());
        }
        HeaderLimits uncapped = HeaderLimits.CEILING;
        byte[] ceiling = ("From: a@shop.example\r\n" + "a:\r\n".repeat(uncapped.maxFields() - 1) + "\r\n"
                + "z".repeat(76) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        System.out.printf("at the settings' ceiling (%,d fields): the parsed header costs %.0f bytes a field%n",
                uncapped.maxFields(), retainedParsed(ceiling, count, uncapped) * ceiling.length / uncapped.maxFields());
    }

    /** A message a sender could send: its name and bytes. */
    private record Shape(String name, byte[] bytes) {
    }

    private static Shape tinyFields(int fields) {
        StringBuilder text = new StringBuilder("From: a@shop.example\r\nTo: b@raw.example\r\n");
        text.append("a:\n".repeat(fields - 2)).append("\r\n");
        return new Shape(fields + " a: fields, body to 1 MiB", fill(text));
    }

    private static Shape longLines(int headerBytes) {
        StringBuilder text = new StringBuilder("From: a@shop.example\r\nTo: b@raw.example\r\n");
        String line = "X-Long: " + "y".repeat(990) + "\r\n";
        while (text.length() + line.length() + 2 <= headerBytes) {
            text.append(line);
        }
        text.append("\r\n");
        return new Shape(headerBytes / 1024 + " KiB of 998-octet fields", fill(text));
    }

    private static Shape ordinary() {
        StringBuilder text = new StringBuilder("From: Shop <a@shop.example>\r\nTo: b@raw.example\r\nSubject: invoice\r\n"
                + "MIME-Version: 1.0\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n");
        return new Shape("ordinary, base64 body", fill(text));
    }

    /** @return the text followed by 76-character body lines up to {@link #SIZE} bytes */
    private static byte[] fill(StringBuilder text) {
        String line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\r\n";
        while (text.length() + line.length() <= SIZE) {
            text.append(line);
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static void measure(Shape shape, int count, HeaderLimits limits, Session session) throws Exception {
        byte[] input = shape.bytes();
        for (int warm = 0; warm < 20; warm++) { // the JIT compiles the paths before they are measured
            RawGatedMessage composed = compose(session, RawMessage.parse(input, limits).stored("<w@shop.example>", NOW));
            composed.writeTo(OutputStream.nullOutputStream());
        }
        long before = allocated();
        byte[] stored = RawMessage.parse(input, limits).stored("<m@shop.example>", NOW);
        double enqueueAllocated = (allocated() - before) / (double) input.length;
        System.out.printf("%-34s enqueue   %12.3f  %13.3f%n", shape.name(), retainedParsed(input, count, limits),
                enqueueAllocated);
        before = allocated();
        compose(session, stored).writeTo(OutputStream.nullOutputStream());
        double sendAllocated = (allocated() - before) / (double) input.length;
        List<Object> held = new ArrayList<>();
        long base = usedAfterGc();
        for (int i = 0; i < count; i++) {
            held.add(compose(session, stored));
        }
        long used = usedAfterGc() - base;
        System.out.printf("%-34s sending   %12.3f  %13.3f%n", shape.name(), used / (double) count / input.length,
                sendAllocated);
        held.clear();
    }

    /** @return the heap that a parsed message holds beyond its input, per input byte */
    private static double retainedParsed(byte[] input, int count, HeaderLimits limits) throws Exception {
        List<RawMessage> held = new ArrayList<>();
        long base = usedAfterGc();
        for (int i = 0; i < count; i++) {
            held.add(RawMessage.parse(input, limits)); // each holds the same input array: only what parsing adds counts
        }
        long used = usedAfterGc() - base;
        held.clear();
        return used / (double) count / input.length;
    }

    private static RawGatedMessage compose(Session session, byte[] stored) throws Exception {
        return new RawGatedMessage(session, "<m@shop.example>", stored, "a@shop.example", List.of("b@raw.example"), false);
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
