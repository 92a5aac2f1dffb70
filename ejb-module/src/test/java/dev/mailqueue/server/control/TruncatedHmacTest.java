package dev.mailqueue.server.control;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shared signing of VERP tokens and unsubscribe links. */
class TruncatedHmacTest {

    static final byte[] SECRET = "a secret of at least thirty-two characters".getBytes(StandardCharsets.UTF_8);

    @Test
    void aTagVerifiesOnlyForItsMessageContextAndSecret() {
        TruncatedHmac verp = new TruncatedHmac(SECRET, "mailqueue-verp-v1:", 10);
        byte[] tag = verp.tag("42");

        assertThat(tag).hasSize(10);
        assertThat(verp.verifies("42", tag)).isTrue();
        assertThat(verp.verifies("43", tag)).isFalse();
        assertThat(new TruncatedHmac(SECRET, "unsubscribe\n", 10).verifies("42", tag)).as("another purpose").isFalse();
        assertThat(new TruncatedHmac("another secret".getBytes(StandardCharsets.UTF_8), "mailqueue-verp-v1:", 10)
                .verifies("42", tag)).isFalse();
        assertThat(verp.verifies("42", null)).isFalse();
        assertThat(verp.toString()).doesNotContain("secret of");
    }

    @Test
    void fewerThan80BitsOrNoSecretIsAnError() {
        assertThatThrownBy(() -> new TruncatedHmac(SECRET, "x", 9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TruncatedHmac(new byte[0], "x", 16)).isInstanceOf(IllegalArgumentException.class);
    }
}
