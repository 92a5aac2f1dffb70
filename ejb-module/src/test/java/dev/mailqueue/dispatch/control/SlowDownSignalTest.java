package dev.mailqueue.dispatch.control;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which SMTP replies ask the queue to send more slowly through an account. */
class SlowDownSignalTest {

    @Test
    void replyCode421IsASlowDown() {
        assertThat(SlowDownSignal.isSlowDown(new SmtpReply(421, "421 Too many messages, slow down"))).isTrue();
    }

    @Test
    void enhancedStatus47xOnA4yzReplyIsASlowDown() {
        assertThat(SlowDownSignal.isSlowDown(new SmtpReply(450, "450 4.7.0 rate limited, try later"))).isTrue();
        assertThat(SlowDownSignal.isSlowDown(new SmtpReply(451, "4.7.28 Our system has detected an unusual rate"))).isTrue();
    }

    @Test
    void otherRepliesAreNot() {
        assertThat(SlowDownSignal.isSlowDown(new SmtpReply(450, "450 4.2.1 mailbox busy"))).isFalse();
        assertThat(SlowDownSignal.isSlowDown(new SmtpReply(550, "550 5.7.1 relaying denied"))).isFalse();
        assertThat(SlowDownSignal.isSlowDown(new SmtpReply(451, "451 try 4.7.0 later"))).isFalse();
        assertThat(SlowDownSignal.isSlowDown(new SmtpReply(250, "250 OK"))).isFalse();
        assertThat(SlowDownSignal.isSlowDown(SmtpReply.NONE)).isFalse();
    }
}
