package dev.mailqueue.dispatch.control;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which replies are worth another try (RFC 5321 §4.2.1 reply classes, refined by RFC 3463 enhanced
 * status codes), and which say "slow down".
 */
class FailureClassTest {

    @ParameterizedTest(name = "{0} {1} -> {2}, enhanced {3}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            "550 | 550 5.1.1 <bob@example.com>: Recipient address rejected | PERMANENT | 5.1.1",
            "554 | 554 Transaction failed                                | PERMANENT | -",
            "552 | 552 4.2.2 Mailbox full                                 | TRANSIENT | 4.2.2",
            "550 | 550-5.7.1 Relaying denied                             | PERMANENT | 5.7.1",
            "450 | 450 4.2.1 try again later                             | TRANSIENT | 4.2.1",
            "421 | 421 4.7.0 Too many messages, slow down                | TRANSIENT | 4.7.0",
            "451 | 451 Temporary local problem                           | TRANSIENT | -",
            "452 | 452 5.3.4 odd but enhanced wins                       | PERMANENT | 5.3.4",
            "550 | 550 5.1.10 detail of two digits                       | PERMANENT | 5.1.10",
            "550 | 550 5.1.1000 too long a detail is no code             | PERMANENT | -",
            "550 | 550 Requested action not taken: mailbox unavailable    | PERMANENT | -",
    })
    void theReplyDecides(int code, String text, FailureClass expected, String enhanced) {
        SmtpReply reply = new SmtpReply(code, text);
        assertThat(FailureClass.of(reply)).isEqualTo(expected);
        assertThat(reply.enhancedStatus()).isEqualTo(enhanced);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "421 | 421 Service not available, closing channel | true",
            "450 | 450 4.7.1 Rate limit exceeded             | true",
            "451 | 451 4.7.0 Temporary policy reason          | true",
            "451 | 4.7.28 Our system has detected an unusual rate | true",
            "451 | 451 try 4.7.0 later                          | false",
            "450 | 450 4.2.1 mailbox busy                     | false",
            "550 | 550 5.7.1 policy refusal, permanent        | false",
    })
    void slowDownIs421OrAClassFourPolicyStatus(int code, String text, boolean slowDown) {
        assertThat(new SmtpReply(code, text).isSlowDown()).isEqualTo(slowDown);
    }

    @org.junit.jupiter.api.Test
    void noReplyAtAllIsTransient() {
        assertThat(FailureClass.of(SmtpReply.NONE)).isEqualTo(FailureClass.TRANSIENT);
        assertThat(SmtpReply.NONE.enhancedStatus()).isNull();
        assertThat(SmtpReply.NONE.isSlowDown()).isFalse();
    }
}
