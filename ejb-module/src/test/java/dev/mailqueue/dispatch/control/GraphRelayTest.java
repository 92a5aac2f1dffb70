package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How Microsoft Graph's answers (HTTP statuses) map to the delivery policy. */
class GraphRelayTest {

    @Test
    void eachStatusCountsAsItsSmtpCounterpart() {
        assertThat(reply(429)).satisfies(r -> {
            assertThat(FailureClass.of(r)).isEqualTo(FailureClass.TRANSIENT);
            assertThat(r.isSlowDown()).isTrue();
        });
        assertThat(FailureClass.of(reply(400))).isEqualTo(FailureClass.PERMANENT);
        assertThat(reply(413).enhancedStatus()).isEqualTo("5.3.4");
        assertThat(FailureClass.of(reply(503))).isEqualTo(FailureClass.TRANSIENT);
        assertThat(reply(503).isSlowDown()).isFalse();
        for (int accountLevel : new int[]{401, 403, 404}) {
            assertThat(GraphRelay.refusal(accountLevel, "x")).isInstanceOf(SmtpUnreachableException.class);
        }
        for (int unsure : new int[]{500, 502, 504}) {
            MessagingException e = GraphRelay.refusal(unsure, "x");
            assertThat(e).isNotInstanceOf(SmtpUnreachableException.class);
            assertThat(SmtpReply.of(e)).as("no reply: in doubt").isEqualTo(SmtpReply.NONE);
        }
    }

    private static SmtpReply reply(int status) {
        return SmtpReply.of(GraphRelay.refusal(status, "Microsoft Graph answered " + status));
    }
}
