package dev.mailqueue.queue.control;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The key of an erased address: HMAC-SHA-256 as another implementation computes it, the same for any case and
 * surrounding space, never a valid address, and the same from many threads at once.
 */
class ErasureKeyTest {

    static final String SECRET = "erasure-test-secret-of-32-characters-at-least";

    /** Python 3: {@code hmac.new(SECRET.encode(), b'alice@example.com', hashlib.sha256).hexdigest()}. */
    static final String PYTHON = "5c9580a0162d4399c3768f1267bc60a773df9d310cf744921ad456c894a47c0e";

    @Test
    void theKeyIsTheHmacOfTheAddressInLowerCase() {
        ErasureKey key = ErasureKey.of(SECRET);
        assertThat(key.key("alice@example.com")).isEqualTo("erased:" + PYTHON);
        assertThat(key.key(" Alice@EXAMPLE.com ")).isEqualTo("erased:" + PYTHON);
        assertThat(key.key("alice@example.co")).isNotEqualTo("erased:" + PYTHON);
        assertThat(ErasureKey.of(SECRET + "x").key("alice@example.com")).as("another secret").isNotEqualTo("erased:" + PYTHON);
        assertThat(dev.mailqueue.api.validation.MailAddressValidator.problemWith(key.key("alice@example.com")))
                .as("a key is never an address").isNotNull();
    }

    @Test
    void aShortSecretIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ErasureKey.of("x".repeat(31))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mailqueue.erasure.secret").hasMessageContaining("32");
        assertThat(ErasureKey.of("x".repeat(32)).key("a@b.example")).startsWith(ErasureKey.PREFIX);
    }

    @Test
    void oneKeyServesManyThreadsAtOnce() throws Exception {
        ErasureKey key = ErasureKey.of(SECRET);
        var pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> keys = IntStream.range(0, 2000)
                    .mapToObj(i -> pool.submit(() -> key.key(i % 2 == 0 ? "alice@example.com" : "bob@example.com")))
                    .toList();
            String bob = key.key("bob@example.com");
            for (int i = 0; i < keys.size(); i++) {
                assertThat(keys.get(i).get()).isEqualTo(i % 2 == 0 ? "erased:" + PYTHON : bob);
            }
        } finally {
            pool.shutdown();
        }
    }
}
