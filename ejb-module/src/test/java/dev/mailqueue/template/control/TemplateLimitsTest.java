package dev.mailqueue.template.control;

import dev.mailqueue.api.TemplateText;
import dev.mailqueue.testsupport.TestTemplates;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What one mail's render may cost (issue 47, point 6): the heap it allocates, its wall-clock time, the stack its
 * macro calls take; each limit shown refusing with the limit low and letting the same template through with it
 * high, and every refusal a {@link TemplateEngine.Failure} (a 400), never an {@link Error}.
 */
class TemplateLimitsTest {

    /** 24 doublings of one character: a 16 Mi-character string, written out as its length only (8 characters). */
    static final String DOUBLING = "<#assign s = \"x\"><#list 1..24 as i><#assign s = s + s></#list>${s?length?c}";

    static TemplateText text(String source) {
        return new TemplateText("en", null, source, null);
    }

    static String render(TemplateEngine engine, String source, Map<String, Object> variables) throws TemplateEngine.Failure {
        return engine.render(engine.compile("t", text(source)), variables).text();
    }

    @Test
    void aStringBuiltInALoopIsRefusedPastTheAllocationCapAndPassesUnderAHighOne() throws Exception {
        TemplateEngine low = TestTemplates.engine(RenderLimits.MAX_ALLOCATED_BYTES, Long.toString(16L << 20));
        TemplateEngine high = TestTemplates.engine(RenderLimits.MAX_ALLOCATED_BYTES, Long.toString(1L << 30));

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        assertThat(render(high, DOUBLING, Map.of())).as("negative control: 1 GiB lets it through").isEqualTo("16777216");
        System.out.printf("24 doublings allocated %,d bytes%n", threads.getCurrentThreadAllocatedBytes() - before);
        assertThatThrownBy(() -> render(low, DOUBLING, Map.of())).isInstanceOfSatisfying(TemplateEngine.Failure.class, f -> {
            assertThat(f.limit()).isTrue();
            assertThat(f.part()).isEqualTo("text");
            assertThat(f.getMessage()).isEqualTo("needed more than 16777216 bytes of memory to render"
                    + " (mailqueue.templates.max-render-bytes)");
        });
        assertThatThrownBy(() -> render(TestTemplates.engine(), DOUBLING, Map.of())).as("the shipped cap refuses it too")
                .isInstanceOf(TemplateEngine.Failure.class).hasMessageContaining("bytes of memory");
        assertThat(Thread.currentThread().isInterrupted()).as("the stopped render's interrupt is cleared").isFalse();
    }

    @Test
    void oneExpressionWithNoLoopThatAllocatesPastTheCapIsRefusedWhenItEnds() throws Exception {
        String pad = "${\"\"?left_pad(20000000)?length?c}"; // 20 M characters, no loop to stop it in
        // a long time limit: on a busy machine padding 20 M characters can take a second
        TemplateEngine low = TestTemplates.engine(RenderLimits.MAX_ALLOCATED_BYTES, Long.toString(8L << 20),
                RenderLimits.TIMEOUT, "600000");
        TemplateEngine high = TestTemplates.engine(RenderLimits.MAX_ALLOCATED_BYTES, Long.toString(1L << 30),
                RenderLimits.TIMEOUT, "600000");

        assertThat(render(high, pad, Map.of())).isEqualTo("20000000");
        assertThatThrownBy(() -> render(low, pad, Map.of())).isInstanceOf(TemplateEngine.Failure.class)
                .hasMessageContaining("needed more than 8388608 bytes");
    }

    @Test
    void aLoopPastTheTimeLimitIsStoppedNearItAndOneWithinItRuns() throws Exception {
        String forever = "<#list 1..2000000000 as i></#list>done";
        String counted = "<#assign n = 0><#list 1..20000 as i><#assign n = n + 1></#list>${n?c}";
        // The loop allocates too (about 0.5 GB/s here): the allocation cap set high, so the time limit is what stops it.
        TemplateEngine strict = TestTemplates.engine(RenderLimits.TIMEOUT, "100", RenderLimits.MAX_ALLOCATED_BYTES,
                Long.toString(16L << 30));

        long start = System.nanoTime();
        assertThatThrownBy(() -> render(strict, forever, Map.of())).isInstanceOfSatisfying(TemplateEngine.Failure.class, f -> {
            assertThat(f.limit()).isTrue();
            assertThat(f.getMessage()).isEqualTo("took longer than 100 ms to render (mailqueue.templates.render-timeout.ms)");
        });
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(millis).as("stopped soon after its deadline").isBetween(100L, 1_000L);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();

        assertThat(render(TestTemplates.engine(RenderLimits.TIMEOUT, "10000"), counted, Map.of()))
                .as("negative control: a loop that ends within its limit").isEqualTo("20000");
        assertThat(render(TestTemplates.engine(RenderLimits.TIMEOUT, "600000", RenderLimits.MAX_ALLOCATED_BYTES,
                        Long.toString(16L << 30)), "<#list 1..3000000 as i></#list>done",
                Map.of())).as("negative control: a long loop under a long limit").isEqualTo("done");
    }

    @Test
    void aMacroThatCallsItselfForEverIsAFailureNotAStackOverflowError() throws Exception {
        TemplateEngine engine = TestTemplates.engine();
        String recursion = "<#macro m n><@m n + 1/></#macro><@m 0/>";

        assertThatThrownBy(() -> render(engine, recursion, Map.of())).isInstanceOfSatisfying(TemplateEngine.Failure.class, f -> {
            assertThat(f.limit()).isTrue();
            assertThat(f.getMessage()).isEqualTo("nests macro or function calls too deeply (the stack overflowed)");
        });
        assertThat(render(engine, "<#macro m n><#if n < 50><@m n + 1/><#else>${n}</#if></#macro><@m 0/>", Map.of()))
                .as("negative control: recursion that ends").isEqualTo("50");
        assertThat(render(engine, "Hi ${name}", Map.of("name", "Jo"))).as("the thread renders again").isEqualTo("Hi Jo");
    }

    @Test
    void anInterruptTheCallerHadIsNeitherAFaultOfTheRenderNorLost() throws Exception {
        TemplateEngine engine = TestTemplates.engine();
        Thread.currentThread().interrupt();
        try {
            assertThat(render(engine, "<#list 1..3 as i>${i}</#list>", Map.of())).isEqualTo("123");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    /**
     * The shipped cap against what real templates cost: a 1 MB HTML body with 10,000 interpolations, and a table of
     * 14,000 order lines given as variables that renders to about 1 M characters (the most a body may be), each
     * render's allocation printed and under the cap.
     */
    @Test
    void theShippedCapLetsLargeRealTemplatesThrough() throws Exception {
        TemplateEngine engine = TestTemplates.engine();
        StringBuilder big = new StringBuilder();
        while (big.length() < 1_000_000 - 200) {
            big.append("<p>Dear ${user.name}, your order ${order.number} ships today.</p>\n");
        }
        List<Map<String, Object>> lines = new ArrayList<>();
        for (int i = 0; i < 14_000; i++) {
            lines.add(Map.of("title", "Item " + i, "qty", i % 7 + 1, "price", 19.99 + i));
        }
        Map<String, Object> variables = Map.of("user", Map.of("name", "Jane <Doe>"), "order",
                Map.of("number", 12345, "lines", lines));
        String list = "<table><#list order.lines as l><tr><td>${l.title}</td><td>${l.qty}</td><td>${l.price}</td>"
                + "<td>${l.qty * l.price}</td></tr></#list></table>";
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        for (String source : List.of(big.toString(), list)) {
            TemplateEngine.Compiled compiled = engine.compile("t", new TemplateText("en", null, null, source));
            engine.render(compiled, variables); // warm
            long before = threads.getCurrentThreadAllocatedBytes();
            String html = engine.render(compiled, variables).html();
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("render of %,d characters of source to %,d characters allocated %,d bytes%n",
                    source.length(), html.length(), allocated);
            assertThat(allocated).isLessThan(engine.limits().maxAllocatedBytes());
        }
    }
}
