package dev.mailqueue.bounce.control;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** VERP tokens: they name their mail, verify only under their own secret, and always fit a local part. */
class VerpTokenTest {

    static final String SECRET = "0123456789abcdef0123456789abcdef-test-only";

    final VerpToken cut = new VerpToken(SECRET);

    @Test
    void aTokenNamesItsMailAndReadsBackInAnyCase() {
        for (long id : new long[]{0, 1, 42, 1_000_000_007L, Long.MAX_VALUE}) {
            String token = cut.of(id);
            assertThat(token).matches("[0-9a-z]+-[0-9a-f]{20}");
            assertThat(cut.mailId(token)).hasValue(id);
            assertThat(cut.mailId(token.toUpperCase())).as("an MTA may fold the local part's case").hasValue(id);
        }
        assertThat(cut.of(Long.MAX_VALUE)).hasSize(VerpToken.MAX_CHARS);
    }

    @Test
    void anAlteredOrForeignTokenNamesNoMail() {
        String token = cut.of(42);
        String otherMail = Long.toString(43, 36) + token.substring(token.indexOf('-'));
        char last = token.charAt(token.length() - 1);
        String flipped = token.substring(0, token.length() - 1) + (last == '0' ? '1' : '0');
        VerpToken otherSecret = new VerpToken(SECRET.replace('0', 'x'));

        assertThat(cut.mailId(otherMail)).as("the MAC of mail 42 on mail 43").isEmpty();
        assertThat(cut.mailId(flipped)).as("one hex digit of the MAC changed").isEmpty();
        assertThat(otherSecret.mailId(token)).as("another server's secret").isEmpty();
        assertThat(cut.mailId(token.substring(0, token.length() - 2))).as("shortened").isEmpty();
        assertThat(cut.mailId("zzzzzzzzzzzzz-" + token.substring(token.indexOf('-') + 1))).as("id above Long.MAX_VALUE").isEmpty();
        assertThat(cut.mailId("-1-" + token.substring(token.indexOf('-') + 1))).isEmpty();
        assertThat(cut.mailId(null)).isEqualTo(OptionalLong.empty());
        assertThat(cut.mailId("")).isEmpty();
    }

    @Test
    void theSecretMustHaveThirtyTwoOctetsAndIsNeverShown() {
        assertThatThrownBy(() -> new VerpToken("short-secret")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("32").hasMessageNotContaining("short-secret");
        assertThatThrownBy(() -> new VerpToken(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat("é".repeat(16).getBytes(StandardCharsets.UTF_8)).hasSize(32);
        assertThat(new VerpToken("é".repeat(16)).of(1)).as("octets of UTF-8 count, not characters").isNotEmpty();
        assertThat(cut.toString()).doesNotContain(SECRET);
        assertThatThrownBy(() -> cut.of(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
