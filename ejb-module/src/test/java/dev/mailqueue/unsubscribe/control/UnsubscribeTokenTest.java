package dev.mailqueue.unsubscribe.control;

import dev.mailqueue.server.control.TruncatedHmac;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The signed token of a one-click unsubscribe link: what it names comes back until it expires, and nothing else passes. */
class UnsubscribeTokenTest {

    static final String SECRET = "a secret of at least thirty-two characters";
    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");
    static final Instant EXPIRY = NOW.plusSeconds(86_400);

    static UnsubscribeToken token(String list, String address) {
        return new UnsubscribeToken(list, address, EXPIRY);
    }

    @Test
    void aSignedTokenNamesItsListAndAddressAndUsesOnlyUrlSafeCharacters() {
        String token = token("news", "reader@example.org").sign(SECRET);

        assertThat(token).matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{22}");
        assertThat(UnsubscribeToken.verify(token, SECRET, NOW)).contains(token("news", "reader@example.org"));
    }

    @Test
    void aTokenStopsWorkingWhenItExpires() {
        String token = token("news", "reader@example.org").sign(SECRET);

        assertThat(UnsubscribeToken.verify(token, SECRET, EXPIRY.minusSeconds(1))).isPresent();
        assertThat(UnsubscribeToken.verify(token, SECRET, EXPIRY)).isEmpty();
        String payload = token.substring(0, token.lastIndexOf('.'));
        String later = Base64.getUrlEncoder().withoutPadding().encodeToString(("news\nreader@example.org\n"
                + EXPIRY.plusSeconds(86_400 * 365L).getEpochSecond()).getBytes(StandardCharsets.UTF_8));
        assertThat(UnsubscribeToken.verify(later + token.substring(token.lastIndexOf('.')), SECRET, EXPIRY))
                .as("a later expiry under the same signature").isEmpty();
        assertThat(payload).isNotEqualTo(later);
    }

    @Test
    void aLinkOfTheFirstFormWithoutExpiryStillWorks() {
        String payload = "news\nreader@example.org";
        String first = Base64.getUrlEncoder().withoutPadding().encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "."
                + Base64.getUrlEncoder().withoutPadding().encodeToString(new TruncatedHmac(
                SECRET.getBytes(StandardCharsets.UTF_8), "unsubscribe\n", UnsubscribeToken.TAG_BYTES).tag(payload));

        assertThat(UnsubscribeToken.verify(first, SECRET, NOW)).contains(new UnsubscribeToken("news", "reader@example.org", Instant.MAX));
    }

    @Test
    void anAddressWithAnyCharactersComesBackAsItWas() {
        UnsubscribeToken link = token("a.b_c-9", "\"odd local\"+tag@xn--bcher-kva.example");

        assertThat(UnsubscribeToken.verify(link.sign(SECRET), SECRET, NOW)).contains(link);
    }

    @Test
    void theLongestListAndAddressMakeALinkThatFitsAHeaderLine() {
        String token = token("l".repeat(64), "a".repeat(64) + "@" + "d".repeat(189)).sign(SECRET);

        assertThat(token.length()).as("RFC 5322 2.1.1: 998 characters a line, with the URL in front").isLessThan(520);
    }

    @Test
    void anotherAddressUnderTheSameSignatureIsRefused() {
        String token = token("news", "reader@example.org").sign(SECRET);
        String tag = token.substring(token.lastIndexOf('.'));
        String forged = Base64.getUrlEncoder().withoutPadding()
                .encodeToString(("news\nvictim@example.org\n" + EXPIRY.getEpochSecond()).getBytes(StandardCharsets.UTF_8)) + tag;

        assertThat(UnsubscribeToken.verify(forged, SECRET, NOW)).isEmpty();
    }

    @Test
    void aChangedSignatureOrAnotherSecretIsRefused() {
        String token = token("news", "reader@example.org").sign(SECRET);
        char last = token.charAt(token.length() - 1);
        String altered = token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A');

        assertThat(UnsubscribeToken.verify(altered, SECRET, NOW)).isEmpty();
        assertThat(UnsubscribeToken.verify(token, SECRET + "!", NOW)).isEmpty();
        assertThat(UnsubscribeToken.verify(token.substring(0, token.length() - 4), SECRET, NOW)).as("a shortened tag").isEmpty();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", ".", "abc", "abc.", ".abc", "not base64!.abc", "bmV3cw.AAAA", "%2e%2e%2f.x", "a.b.c"})
    void somethingThatIsNoTokenIsRefusedWithoutAnError(String token) {
        assertThat(UnsubscribeToken.verify(token, SECRET, NOW)).isEmpty();
        assertThat(UnsubscribeToken.verify("x".repeat(100_000), SECRET, NOW)).isEmpty();
    }

    @Test
    void aShortSecretIsAnError() {
        assertThatThrownBy(() -> token("news", "a@example.org").sign("short"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 32 characters");
    }
}
