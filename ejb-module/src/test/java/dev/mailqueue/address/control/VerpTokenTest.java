package dev.mailqueue.address.control;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * VERP tokens: they name their mail and recipient, verify only under their own secret, cannot be moved to
 * another recipient, and always fit a local part; tokens of the first form still name their mail.
 */
public class VerpTokenTest {

    public static final String SECRET = "0123456789abcdef0123456789abcdef-test-only";

    final VerpToken cut = new VerpToken(SECRET);

    @Test
    void aTokenNamesItsMailAndRecipientAndReadsBackInAnyCase() {
        for (long id : new long[]{0, 1, 42, 1_000_000_007L, Long.MAX_VALUE}) {
            for (int recipient : new int[]{0, 1, 99, VerpToken.MAX_RECIPIENTS - 1}) {
                String token = cut.of(id, recipient);
                assertThat(token).matches("[0-9a-z]+\\.[0-9a-z]{1,2}-[0-9a-f]{20}");
                assertThat(cut.read(token)).hasValue(new VerpToken.Named(id, Optional.of(recipient)));
                assertThat(cut.read(token.toUpperCase())).as("an MTA may fold the local part's case")
                        .hasValue(new VerpToken.Named(id, Optional.of(recipient)));
            }
        }
        assertThat(cut.of(Long.MAX_VALUE, VerpToken.MAX_RECIPIENTS - 1)).hasSize(VerpToken.MAX_CHARS);
    }

    @Test
    void aTokenCannotBeMovedToAnotherRecipientOrMail() {
        String token = cut.of(42, 0);
        String mac = token.substring(token.indexOf('-'));
        assertThat(cut.read(Long.toString(42, 36) + ".1" + mac)).as("recipient 0's MAC on recipient 1").isEmpty();
        assertThat(cut.read(Long.toString(43, 36) + ".0" + mac)).as("mail 42's MAC on mail 43").isEmpty();
        assertThat(cut.read(Long.toString(42, 36) + mac)).as("the per-recipient MAC as a token of the first form").isEmpty();
    }

    @Test
    void aTokenOfTheFirstFormNamesItsMailOnly() {
        String token = cut.ofMail(42);
        assertThat(token).matches("[0-9a-z]+-[0-9a-f]{20}");
        assertThat(cut.read(token)).hasValue(new VerpToken.Named(42, Optional.empty()));
        assertThat(cut.read(token.replace("-", ".0-"))).as("its MAC does not name a recipient").isEmpty();
    }

    @Test
    void anAlteredOrForeignTokenNamesNothing() {
        String token = cut.of(42, 3);
        char last = token.charAt(token.length() - 1);
        String flipped = token.substring(0, token.length() - 1) + (last == '0' ? '1' : '0');
        VerpToken otherSecret = new VerpToken(SECRET.replace('0', 'x'));

        assertThat(cut.read(flipped)).as("one hex digit of the MAC changed").isEmpty();
        assertThat(otherSecret.read(token)).as("another server's secret").isEmpty();
        assertThat(cut.read(token.substring(0, token.length() - 2))).as("shortened").isEmpty();
        assertThat(cut.read("zzzzzzzzzzzzz.0" + token.substring(token.indexOf('-')))).as("id above Long.MAX_VALUE").isEmpty();
        assertThat(cut.read("-1-" + token.substring(token.indexOf('-') + 1))).isEmpty();
        assertThat(cut.read("x".repeat(10_000))).isEmpty();
        assertThat(cut.read(null)).isEmpty();
        assertThat(cut.read("")).isEmpty();
    }

    @Test
    void theSecretMustHaveThirtyTwoOctetsAndIsNeverShown() {
        assertThatThrownBy(() -> new VerpToken("short-secret")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("32").hasMessageNotContaining("short-secret");
        assertThatThrownBy(() -> new VerpToken(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat("é".repeat(16).getBytes(StandardCharsets.UTF_8)).hasSize(32);
        assertThat(new VerpToken("é".repeat(16)).of(1, 0)).as("octets of UTF-8 count, not characters").isNotEmpty();
        assertThat(cut.toString()).doesNotContain(SECRET);
        assertThatThrownBy(() -> cut.of(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cut.of(1, VerpToken.MAX_RECIPIENTS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cut.ofMail(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
