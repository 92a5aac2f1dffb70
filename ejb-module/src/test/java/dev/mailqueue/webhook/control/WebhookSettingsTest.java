package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventType;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading the webhook endpoints: what each wants, and a clear stop for a bad setting. */
class WebhookSettingsTest {

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    static Map<String, String> defaults() {
        Map<String, String> m = new HashMap<>();
        m.put("mailqueue.webhook.interval.ms", "2000");
        m.put("mailqueue.webhook.timeout.ms", "10000");
        m.put("mailqueue.webhook.backoff.min.ms", "5000");
        m.put("mailqueue.webhook.backoff.max.ms", "3600000");
        m.put("mailqueue.webhook.give-up.ms", "259200000");
        m.put("mailqueue.webhook.disable-after.ms", "432000000");
        m.put("mailqueue.webhook.batch-size", "100");
        m.put("mailqueue.webhook.allow-private-addresses", "false");
        return m;
    }

    static WebhookSettings read(Map<String, String> m) {
        return WebhookSettings.of(name -> Optional.ofNullable(m.get(name)));
    }

    @Test
    void anEndpointGetsTheEventsAndCampaignsItListsAndNoOthers() {
        Map<String, String> m = defaults();
        m.put("mailqueue.webhooks", "crm, all");
        m.put("mailqueue.webhook.crm.url", "https://crm.example.com/hooks/mail");
        m.put("mailqueue.webhook.crm.secret", SECRET);
        m.put("mailqueue.webhook.crm.events", "bounced, COMPLAINED");
        m.put("mailqueue.webhook.crm.campaigns", "spring-sale");
        m.put("mailqueue.webhook.all.url", "http://hooks.example.com/");
        m.put("mailqueue.webhook.all.secret", SECRET);
        WebhookSettings s = read(m);

        assertThat(s.endpointsFor(EventType.BOUNCED, "spring-sale")).containsExactly("crm", "all");
        assertThat(s.endpointsFor(EventType.BOUNCED, null)).containsExactly("all");
        assertThat(s.endpointsFor(EventType.SENT, "spring-sale")).containsExactly("all");
        assertThat(s.endpoints().get(0).toString()).doesNotContain(SECRET).doesNotContain("MfKQ");
    }

    @Test
    void theBackoffDoublesUpToItsMaximum() {
        WebhookSettings s = read(defaults());
        assertThat(s.backoffMillis(1)).isEqualTo(5_000);
        assertThat(s.backoffMillis(2)).isEqualTo(10_000);
        assertThat(s.backoffMillis(10)).isEqualTo(2_560_000);
        assertThat(s.backoffMillis(11)).isEqualTo(3_600_000);
        assertThat(s.backoffMillis(500)).isEqualTo(3_600_000);
    }

    @Test
    void aBadSettingStopsTheStartAndNamesIt() {
        Map<String, String> m = defaults();
        m.put("mailqueue.webhooks", "crm");
        assertThatThrownBy(() -> read(m)).hasMessageContaining("mailqueue.webhook.crm.url is required");
        m.put("mailqueue.webhook.crm.url", "ftp://crm.example.com/");
        assertThatThrownBy(() -> read(m)).hasMessageContaining("mailqueue.webhook.crm.url must be an absolute http");
        m.put("mailqueue.webhook.crm.url", "https://crm.example.com/");
        assertThatThrownBy(() -> read(m)).hasMessageContaining("mailqueue.webhook.crm.secret is required");
        m.put("mailqueue.webhook.crm.secret", "whsec_dG9vIHNob3J0");
        assertThatThrownBy(() -> read(m)).hasMessageContaining("mailqueue.webhook.crm.secret")
                .message().doesNotContain("dG9vIHNob3J0");
        m.put("mailqueue.webhook.crm.secret", SECRET);
        m.put("mailqueue.webhook.crm.events", "sent,opened");
        assertThatThrownBy(() -> read(m)).hasMessageContaining("'opened' is not an event type");
        m.remove("mailqueue.webhook.crm.events");
        m.put("mailqueue.webhooks", "crm,crm");
        assertThatThrownBy(() -> read(m)).hasMessageContaining("listed twice");
    }

    @Test
    void noEndpointIsConfiguredByDefault() {
        assertThat(read(defaults()).endpoints()).isEmpty();
    }
}
