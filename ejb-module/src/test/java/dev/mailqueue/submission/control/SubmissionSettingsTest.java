package dev.mailqueue.submission.control;

import dev.mailqueue.settings.control.Settings;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The shipped defaults are in range, and a value whose arithmetic would overflow stops the start naming itself. */
class SubmissionSettingsTest {

    @Test
    void theShippedDefaultsAreRead() throws IOException {
        SubmissionSettings cut = SubmissionSettings.read(Settings.of(defaults()));

        assertThat(cut.maxAuthFailures()).isEqualTo(3);
        assertThat(cut.authDeadlineMillis()).isEqualTo(60_000);
        assertThat(cut.sessionDeadlineMillis()).isGreaterThanOrEqualTo(cut.authDeadlineMillis());
        assertThat(cut.maxMessageBytes()).isEqualTo(16 * 1024 * 1024);
    }

    @Test
    void aMessageSizeWhoseLimitPlusOneWouldOverflowIsRefused() throws IOException {
        Map<String, String> values = defaults();
        values.put("mailqueue.submission.max-message-bytes", Integer.toString(Integer.MAX_VALUE));

        assertThatIllegalStateException().isThrownBy(() -> SubmissionSettings.read(Settings.of(values)))
                .withMessageContaining("mailqueue.submission.max-message-bytes");

        values.put("mailqueue.submission.max-message-bytes", Integer.toString(SubmissionSettings.MAX_MESSAGE_BYTES));
        assertThat(SubmissionSettings.read(Settings.of(values)).maxMessageBytes()).as("the largest allowed, 64 MiB")
                .isEqualTo(64 * 1024 * 1024);
    }

    @Test
    void eachCountAndDurationIsBounded() throws IOException {
        for (String setting : new String[]{"max-connections", "max-connections-per-address", "max-messages-per-connection",
                "idle-timeout.ms", "auth-deadline.ms", "session-deadline.ms", "max-auth-failures",
                "auth-failures-per-address", "auth-lockout.ms", "auth-lockout-delay.ms", "tracked-addresses"}) {
            Map<String, String> values = defaults();
            values.put("mailqueue.submission." + setting, Long.toString(Long.MAX_VALUE));
            assertThatIllegalStateException().as(setting)
                    .isThrownBy(() -> SubmissionSettings.read(Settings.of(values)))
                    .withMessageContaining("mailqueue.submission." + setting);
        }
    }

    @Test
    void aSessionDeadlineBeforeTheLoginDeadlineIsRefused() throws IOException {
        Map<String, String> values = defaults();
        values.put("mailqueue.submission.auth-deadline.ms", "60000");
        values.put("mailqueue.submission.session-deadline.ms", "59999");

        assertThatIllegalStateException().isThrownBy(() -> SubmissionSettings.read(Settings.of(values)))
                .withMessageContaining("mailqueue.submission.session-deadline.ms");
    }

    private static Map<String, String> defaults() throws IOException {
        Properties shipped = new Properties();
        try (InputStream in = SubmissionSettingsTest.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            shipped.load(in);
        }
        Map<String, String> values = new HashMap<>();
        shipped.stringPropertyNames().forEach(name -> values.put(name, shipped.getProperty(name)));
        return values;
    }
}
