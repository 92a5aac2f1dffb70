package dev.mailqueue.graph.control;

import dev.mailqueue.settings.control.Settings;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GraphSettingsTest {

    @Test
    void theGlobalServiceUnlessAnotherIsNamedAndTheMailboxEncodedInThePath() {
        GraphSettings s = parse(Map.of("graph.mailbox", "sender@contoso.com"));

        assertThat(s.sendMail()).isEqualTo(URI.create("https://graph.microsoft.com/v1.0/users/sender%40contoso.com/sendMail"));
        assertThat(parse(Map.of("graph.mailbox", "0f5b6c1e-2d3a-4b5c-8d9e-0a1b2c3d4e5f",
                "graph.endpoint", "https://graph.microsoft.us/")).sendMail())
                .isEqualTo(URI.create("https://graph.microsoft.us/v1.0/users/0f5b6c1e-2d3a-4b5c-8d9e-0a1b2c3d4e5f/sendMail"));
    }

    @Test
    void eachMistakeNamesItsSetting() {
        assertThatThrownBy(() -> parse(Map.of())).hasMessageContaining("mailqueue.account.m365.graph.mailbox is not set");
        assertThatThrownBy(() -> parse(Map.of("graph.mailbox", "sender@contoso.com/../../admin")))
                .hasMessageContaining("graph.mailbox: 'sender@contoso.com/../../admin'");
        assertThatThrownBy(() -> parse(Map.of("graph.mailbox", "sender@contoso.com", "graph.endpoint",
                "http://graph.example"))).hasMessageContaining("graph.endpoint").hasMessageContaining("https");
        assertThatThrownBy(() -> parse(Map.of("graph.mailbox", "sender@contoso.com", "graph.endpoint",
                "https://graph.microsoft.com?x=1"))).hasMessageContaining("must have no query");
    }

    private static GraphSettings parse(Map<String, String> perAccount) {
        Map<String, String> values = new HashMap<>();
        perAccount.forEach((k, v) -> values.put("mailqueue.account.m365." + k, v));
        return GraphSettings.parse("m365", Settings.of(values));
    }
}
