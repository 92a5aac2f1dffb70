package dev.mailqueue.settings.control;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The settings bean reads the defaults written once in microprofile-config.properties, and names a bad value. */
public class QueueSettingsTest {

    /**
     * @param overrides pairs of name and value laid over the shipped defaults
     * @return settings as a server with those overrides would have them
     */
    public static QueueSettings defaults(String... overrides) {
        Map<String, String> values = shipped();
        for (int i = 0; i < overrides.length; i += 2) {
            values.put(overrides[i], overrides[i + 1]);
        }
        return QueueSettings.of(values::get);
    }

    static Map<String, String> shipped() {
        Properties properties = new Properties();
        try (InputStream in = QueueSettings.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> values = new HashMap<>();
        properties.forEach((k, v) -> values.put((String) k, (String) v));
        return values;
    }

    @Test
    void theShippedDefaultsAreTheDocumentedOnes() {
        QueueSettings cut = defaults();
        assertThat(cut.intervalMillis()).isEqualTo(5000);
        assertThat(cut.claimers()).isEqualTo(1);
        assertThat(cut.batchSize()).isEqualTo(100);
        assertThat(cut.leaseMillis()).isEqualTo(60_000);
        assertThat(cut.leaseRenewal().toMillis()).isEqualTo(20_000);
        assertThat(cut.coolDownMillis()).isEqualTo(10_000);
        assertThat(cut.maxAttempts()).isEqualTo(100);
        assertThat(cut.retryPolicy().minDelayMillis()).isEqualTo(300_000);
        assertThat(cut.maxLifetimeMillis()).isEqualTo(432_000_000);
        assertThat(cut.retentionDays()).isEqualTo(15);
        assertThat(cut.instance()).isEqualTo("mailqueue");
        assertThat(cut.wakeUp()).isTrue();
        assertThat(defaults("mailqueue.dispatch.wake-up", "false").wakeUp()).isFalse();
        assertThat(cut.rateCaps()).isTrue();
        assertThat(defaults("mailqueue.dispatch.rate-caps", "false").rateCaps()).isFalse();
    }

    @Test
    void aValueOutOfRangeStopsTheStartNamingItsProperty() {
        assertThatIllegalStateException().isThrownBy(() -> defaults("mailqueue.dispatch.batch-size", "0"))
                .withMessageContaining("mailqueue.dispatch.batch-size");
        assertThatIllegalStateException().isThrownBy(() -> defaults("mailqueue.delivery.backoff.jitter", "2"))
                .withMessageContaining("mailqueue.delivery.backoff.jitter");
        assertThatIllegalStateException().isThrownBy(() -> defaults("mailqueue.delivery.in-doubt", "maybe"))
                .withMessageContaining("RESEND");
        assertThatIllegalStateException().isThrownBy(() -> defaults("mailqueue.dispatch.chunk.transaction-timeout.s", "5"))
                .withMessageContaining("transaction-timeout");
    }

    @Test
    void theDeliveryModeIsLiveByDefaultAndRedirectNeedsOneBareAddress() {
        assertThat(defaults().deliveryMode()).isEqualTo(DeliveryMode.LIVE);
        assertThat(defaults("mailqueue.delivery.mode", "sandbox").deliveryMode()).isEqualTo(DeliveryMode.SANDBOX);
        assertThat(defaults("mailqueue.delivery.mode", "redirect", "mailqueue.delivery.redirect-to", " qa@staging.example ")
                .redirectTo()).isEqualTo("qa@staging.example");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> defaults("mailqueue.delivery.mode", "redirect"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("mailqueue.delivery.redirect-to");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> defaults("mailqueue.delivery.mode", "redirect",
                        "mailqueue.delivery.redirect-to", "QA <qa@staging.example>"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("mailqueue.delivery.redirect-to");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> defaults("mailqueue.delivery.mode", "dry-run"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("mailqueue.delivery.mode");
    }
}
