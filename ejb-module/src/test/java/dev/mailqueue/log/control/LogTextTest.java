package dev.mailqueue.log.control;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** Request text in a log line: always one line, no control characters, bounded. */
class LogTextTest {

    @Test
    void lineBreaksAndControlCharactersAreEscapedSoNoLineCanBeForged() {
        String forged = "subject\r\n[11/23/26, 4:00:00:000 UTC] 00000001 Fake  A CWWKF0011I: forged\u0000\u001b[31m";

        String escaped = LogText.escape(forged);

        assertThat(escaped).doesNotContain("\r", "\n", "\u0000", "\u001b")
                .contains("subject\\u000d\\u000a[11/23/26", "\\u0000\\u001b[31m");
    }

    @Test
    void unicodeLineSeparatorsC1ControlsAndLoneSurrogatesAreEscapedButPairsStay() {
        assertThat(LogText.escape("a\u2028b\u2029c\u0085d\ud800e \ud83d\udce8")).isEqualTo("a\\u2028b\\u2029c\\u0085d\\ud800e \ud83d\udce8");
        assertThat(LogText.escape("back\\slash")).isEqualTo("back\\\\slash");
        assertThat(LogText.escape(null)).isEqualTo("null");
    }

    @Test
    void longTextIsCutWithANote() {
        assertThat(LogText.escape("x".repeat(10_000))).hasSize(LogText.MAX_CHARS + "...(9800 more characters)".length())
                .endsWith("...(9800 more characters)");
        assertThat(LogText.escape("x".repeat(LogText.MAX_CHARS - 1) + "\ud83d\udce8")).doesNotContain("\\ud83d");
    }

    @Test
    void aSafeExceptionKeepsClassStackAndCausesButEscapesEveryMessage() {
        SQLException cause = new SQLException("invalid byte sequence: bind => [Hi\nFORGED LINE]");
        RuntimeException failure = new IllegalStateException("unknown account x\r\nFORGED", cause);

        Throwable safe = LogText.safe(failure);
        StringWriter printed = new StringWriter();
        safe.printStackTrace(new PrintWriter(printed));

        assertThat(safe.toString()).startsWith("java.lang.IllegalStateException: unknown account x\\u000d\\u000aFORGED");
        assertThat(safe.getCause().toString()).startsWith("java.sql.SQLException: ");
        assertThat(safe.getStackTrace()).isEqualTo(failure.getStackTrace());
        assertThat(printed.toString().lines()).noneMatch(line -> line.startsWith("FORGED"));
    }
}
