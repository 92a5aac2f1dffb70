package dev.mailqueue.unsubscribe.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The signed token of a one-click unsubscribe link: what it names comes back, and nothing else passes. */
class UnsubscribeTokenTest {

    static final String SECRET = "a secret of at least thirty-two characters";

    @Test
    void aSignedTokenNamesItsListAndAddressAndUsesOnlyUrlSafeCharacters() {
        String token = new UnsubscribeToken("news", "reader@example.org").sign(SECRET);

        assertThat(token).matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{22}");
        assertThat(UnsubscribeToken.verify(token, SECRET)).contains(new UnsubscribeToken("news", "reader@example.org"));
    }

    @Test
    void anAddressWithAnyCharactersComesBackAsItWas() {
        UnsubscribeToken link = new UnsubscribeToken("a.b_c-9", "\"odd local\"+tag@xn--bcher-kva.example");

        assertThat(UnsubscribeToken.verify(link.sign(SECRET), SECRET)).contains(link);
    }

    @Test
    void theLongestListAndAddressMakeALinkThatFitsAHeaderLine() {
        String token = new UnsubscribeToken("l".repeat(64), "a".repeat(64) + "@" + "d".repeat(189)).sign(SECRET);

        assertThat(token.length()).as("RFC 5322 2.1.1: 998 characters a line, with the URL in front").isLessThan(500);
    }

    @Test
    void anotherAddressUnderTheSameSignatureIsRefused() {
        String token = new UnsubscribeToken("news", "reader@example.org").sign(SECRET);
        String tag = token.substring(token.lastIndexOf('.'));
        String forged = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("news\nvictim@example.org".getBytes(StandardCharsets.UTF_8)) + tag;

        assertThat(UnsubscribeToken.verify(forged, SECRET)).isEmpty();
    }

    @Test
    void aChangedSignatureOrAnotherSecretIsRefused() {
        String token = new UnsubscribeToken("news", "reader@example.org").sign(SECRET);
        char last = token.charAt(token.length() - 1);
        String altered = token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A');

        assertThat(UnsubscribeToken.verify(altered, SECRET)).isEmpty();
        assertThat(UnsubscribeToken.verify(token, SECRET + "!")).isEmpty();
        assertThat(UnsubscribeToken.verify(token.substring(0, token.length() - 4), SECRET)).as("a shortened tag").isEmpty();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", ".", "abc", "abc.", ".abc", "not base64!.abc", "bmV3cw.AAAA", "%2e%2e%2f.x", "a.b.c"})
    void somethingThatIsNoTokenIsRefusedWithoutAnError(String token) {
        assertThat(UnsubscribeToken.verify(token, SECRET)).isEmpty();
    }

    @Test
    void aShortSecretIsAnError() {
        assertThatThrownBy(() -> new UnsubscribeToken("news", "a@example.org").sign("short"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 32 characters");
    }
}
