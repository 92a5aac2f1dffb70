package dev.mailqueue.ses.control;

import dev.mailqueue.settings.control.Settings;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SesSettingsTest {

    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

    @Test
    void readsRegionEndpointSetKeyAndTimeouts() {
        SesSettings s = parse(Map.of("ses.region", "eu-west-1", "ses.endpoint", "https://email.eu-west-1.amazonaws.com",
                "ses.configuration-set", "transactional_1", "ses.access-key-id", "AKIAIOSFODNN7EXAMPLE",
                "ses.secret-access-key", SECRET));

        assertThat(s.region()).isEqualTo("eu-west-1");
        assertThat(s.endpoint()).isEqualTo(URI.create("https://email.eu-west-1.amazonaws.com"));
        assertThat(s.configurationSet()).isEqualTo("transactional_1");
        assertThat(s.hasOwnKey()).isTrue();
        assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.toString()).doesNotContain(SECRET).doesNotContain("AKIAIOSFODNN7EXAMPLE").contains("...MPLE");
    }

    @Test
    void withoutAKeyTheSdksDefaultChainIsUsedAndHttpOnlyToLoopback() {
        SesSettings s = parse(Map.of("ses.region", "us-gov-west-1", "ses.endpoint", "http://127.0.0.1:3142"));

        assertThat(s.hasOwnKey()).isFalse();
        assertThat(s.endpoint().getPort()).isEqualTo(3142);
        assertThat(parse(Map.of("ses.region", "us-east-1", "ses.endpoint", "http://[::1]:8005")).endpoint()).isNotNull();
    }

    @Test
    void eachMistakeNamesItsSettingAndNeverTheSecret() {
        assertThatThrownBy(() -> parse(Map.of())).hasMessageContaining("mailqueue.account.bulk.ses.region is not set");
        assertThatThrownBy(() -> parse(Map.of("ses.region", "Europe"))).hasMessageContaining("ses.region: 'Europe'");
        assertThatThrownBy(() -> parse(Map.of("ses.region", "eu-west-1", "ses.endpoint", "http://ses.example.com")))
                .hasMessageContaining("ses.endpoint").hasMessageContaining("must be an https URL");
        assertThatThrownBy(() -> parse(Map.of("ses.region", "eu-west-1", "ses.endpoint", "https://u:p@ses.example")))
                .hasMessageContaining("ses.endpoint");
        assertThatThrownBy(() -> parse(Map.of("ses.region", "eu-west-1", "ses.configuration-set", "a b")))
                .hasMessageContaining("ses.configuration-set");
        assertThatThrownBy(() -> parse(Map.of("ses.region", "eu-west-1", "ses.secret-access-key", SECRET)))
                .hasMessageContaining("secret-access-key is set without").hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> parse(Map.of("ses.region", "eu-west-1", "ses.access-key-id", "short",
                "ses.secret-access-key", SECRET))).hasMessageContaining("ses.access-key-id").hasMessageNotContaining(SECRET);
        Map<String, String> timeout = new HashMap<>(Map.of("mailqueue.account.bulk.ses.region", "eu-west-1"));
        timeout.put(SesSettings.TIMEOUT, "10");
        assertThatThrownBy(() -> SesSettings.parse("bulk", Settings.of(timeout))).hasMessageContaining(SesSettings.TIMEOUT);
    }

    private static SesSettings parse(Map<String, String> perAccount) {
        Map<String, String> values = new HashMap<>();
        perAccount.forEach((k, v) -> values.put("mailqueue.account.bulk." + k, v));
        return SesSettings.parse("bulk", Settings.of(values));
    }
}
