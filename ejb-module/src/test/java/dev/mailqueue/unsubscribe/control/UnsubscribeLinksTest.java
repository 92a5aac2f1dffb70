package dev.mailqueue.unsubscribe.control;

import dev.mailqueue.queue.control.NewMail;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The settings of one-click unsubscribe and the header fields they give a mail. */
class UnsubscribeLinksTest {

    static final String SECRET = UnsubscribeTokenTest.SECRET;

    static UnsubscribeLinks links(String url, String secret) {
        Map<String, String> settings = new HashMap<>();
        settings.put(UnsubscribeLinks.URL, url);
        settings.put(UnsubscribeLinks.SECRET, secret);
        settings.put(UnsubscribeLinks.LIFETIME, "365");
        return UnsubscribeLinks.of(settings::get);
    }

    @Test
    void withoutSettingsMailsMayNotAskForIt() {
        UnsubscribeLinks off = links(null, " ");

        assertThat(off.enabled()).isFalse();
        assertThat(off.verify(new UnsubscribeToken("news", "a@example.org", Instant.MAX).sign(SECRET))).isEmpty();
        assertThatThrownBy(() -> off.link("news", "a@example.org", Instant.now())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(UnsubscribeLinks.URL);
    }

    @Test
    void aMailOfAListGetsBothFieldsWithItsRecipientsLink() {
        UnsubscribeLinks links = links("https://mail.example.com/api/unsubscribe/", SECRET);

        Instant sent = Instant.now();
        List<NewMail.Header> headers = links.headers("news", "Reader@Example.ORG", sent);

        assertThat(headers).extracting(NewMail.Header::name).containsExactly("List-Unsubscribe", "List-Unsubscribe-Post");
        assertThat(headers.get(1).value()).isEqualTo("List-Unsubscribe=One-Click");
        String value = headers.get(0).value();
        assertThat(value).startsWith("<https://mail.example.com/api/unsubscribe/").endsWith(">").doesNotContain("unsubscribe//");
        String token = value.substring(value.lastIndexOf('/') + 1, value.length() - 1);
        assertThat(links.verify(token)).as("the domain as the suppression list keys it")
                .contains(new UnsubscribeToken("news", "Reader@example.org",
                        Instant.ofEpochSecond(sent.plus(Duration.ofDays(365)).getEpochSecond())));
        assertThat(links("https://other.example/u", SECRET + "x").verify(token)).as("another installation's secret").isEmpty();
    }

    @Test
    void oneSettingWithoutTheOtherStopsTheStartNamingTheMissingOne() {
        assertThatThrownBy(() -> links("https://mail.example.com/api/unsubscribe", null))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("configuration " + UnsubscribeLinks.SECRET);
        assertThatThrownBy(() -> links(null, SECRET))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("configuration " + UnsubscribeLinks.URL);
        assertThatThrownBy(() -> links("https://mail.example.com/api/unsubscribe", "x".repeat(31)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at least 32 characters");
    }

    @Test
    void aLifetimeOutOfRangeStopsTheStartNamingIt() {
        Map<String, String> settings = new HashMap<>(Map.of(UnsubscribeLinks.URL, "https://mail.example.com/u",
                UnsubscribeLinks.SECRET, SECRET, UnsubscribeLinks.LIFETIME, "0"));
        assertThatThrownBy(() -> UnsubscribeLinks.of(settings::get)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(UnsubscribeLinks.LIFETIME);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mail.example.com/api/unsubscribe", "ftp://mail.example.com/u", "https://mail.example.com/u?x=1",
            "https://mail.example.com/u#top", "https:///u", "http://exa mple.com/u"})
    void aUrlThatIsNoAbsoluteHttpAddressStopsTheStart(String url) {
        assertThatThrownBy(() -> links(url, SECRET)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(UnsubscribeLinks.URL);
    }
}
