package dev.mailqueue.submission.control;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The idempotency key is the client's submission: its envelope and bytes. */
class QueueApiClientTest {

    private static final byte[] MESSAGE = "From: a@shop.example\r\n\r\nhi\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void theKeyDependsOnTheEnvelopeAndTheClientsBytesOnly() {
        String key = QueueApiClient.key("a@shop.example", List.of("b@x.example"), MESSAGE);

        assertThat(QueueApiClient.key("a@shop.example", List.of("b@x.example"), MESSAGE.clone())).isEqualTo(key);
        assertThat(QueueApiClient.key("a@shop.example", List.of("c@x.example"), MESSAGE)).isNotEqualTo(key);
        assertThat(QueueApiClient.key("", List.of("b@x.example"), MESSAGE)).isNotEqualTo(key);
        assertThat(QueueApiClient.key("a@shop.example", List.of("b@x.example"),
                "From: a@shop.example\r\n\r\nhi!\r\n".getBytes(StandardCharsets.US_ASCII))).isNotEqualTo(key);
    }
}
