package dev.mailqueue.submission.control;

import dev.mailqueue.api.IdempotencyKeyReusedException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The idempotency key is the client's submission; a refusal for a reused key names the mail it queued. */
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

    @Test
    void theFirstMailOfAReusedKeyIsReadFromTheApisRefusalAndNothingElseIs() {
        String detail = new IdempotencyKeyReusedException("smtp-x", 4711).getMessage();
        String reused = "{\"type\":\"urn:mailqueue:problem:idempotency-key-reused\",\"status\":422,\"detail\":\""
                + detail.replace("\"", "\\\"") + "\"}";
        String other = "{\"type\":\"urn:mailqueue:problem:invalid-mail\",\"status\":422,\"detail\":\"x (mail 12)\"}";

        assertThat(QueueApiClient.firstMail(reused)).isEqualTo(OptionalLong.of(4711));
        assertThat(QueueApiClient.firstMail(other)).isEmpty();
        assertThat(QueueApiClient.firstMail("not json")).isEmpty();
    }
}
