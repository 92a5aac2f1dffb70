package dev.mailqueue.submission.control;

import org.junit.jupiter.api.Test;
import org.subethamail.smtp.RejectException;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SubmissionRepliesTest {

    @Test
    void eachRefusalOfTheApiIsTheSmtpReplyAClientUnderstands() {
        assertThat(reply(403, "from: user sender may not send as x@other.example")).isEqualTo(
                "550 5.7.1 not allowed: from: user sender may not send as x@other.example");
        assertThat(reply(413, ": too large")).startsWith("552 5.3.4 ");
        assertThat(reply(400, "to[1]: must not use a quoted local part")).startsWith("553 5.1.3 recipient refused");
        assertThat(reply(400, "from: is not a valid e-mail address")).startsWith("553 5.1.7 sender refused");
        assertThat(reply(400, "message.Message-ID: is not one RFC 5322 3.6.4 msg-id")).startsWith("554 5.6.0 message");
        assertThat(reply(401, ": unauthorized")).startsWith("530 5.7.0 ");
        assertThat(SubmissionReplies.unavailable().getErrorResponse()).startsWith("451 4.3.0 ");
    }

    @Test
    void aReplyIsOneLineOfPrintableAsciiOfBoundedLength() {
        String reply = SubmissionReplies.reject(554, "5.6.0", "line one\r\nline two \u00fc " + "x".repeat(1_000))
                .getErrorResponse();

        assertThat(reply).startsWith("554 5.6.0 line one  line two ? ").doesNotContain("\r", "\n");
        assertThat(reply.chars().allMatch(c -> c >= 0x20 && c < 0x7f)).isTrue();
        assertThat(reply.length()).isLessThanOrEqualTo(4 + SubmissionReplies.TEXT_CHARS);
    }

    @Test
    void theIdempotencyKeyOfASubmissionDependsOnItsEnvelopeAndBytes() {
        byte[] message = "From: a@shop.example\r\n\r\nx\r\n".getBytes();
        String key = QueueApiClient.key("a@shop.example", List.of("b@x.example"), message);

        assertThat(key).matches("smtp-[0-9a-f]{64}");
        assertThat(QueueApiClient.key("a@shop.example", List.of("b@x.example"), message.clone())).isEqualTo(key);
        assertThat(QueueApiClient.key("a@shop.example", List.of("c@x.example"), message)).isNotEqualTo(key);
        assertThat(QueueApiClient.key("", List.of("b@x.example"), message)).isNotEqualTo(key);
    }

    private static String reply(int status, String field) {
        RejectException e = SubmissionReplies.refused(new QueueApiClient.Refused(status, List.of(field)));
        return e.getErrorResponse();
    }
}
