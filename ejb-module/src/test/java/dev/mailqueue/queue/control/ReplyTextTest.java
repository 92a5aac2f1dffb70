package dev.mailqueue.queue.control;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** An event's reply text: what the server said after the code and enhanced status it carries beside it. */
class ReplyTextTest {

    @Test
    void theCodeAndTheEnhancedStatusBesideTheTextAreNotSaidAgainInIt() {
        assertThat(ReplyText.of(250, null, "250 OK")).isEqualTo("OK");
        assertThat(ReplyText.of(250, "2.0.0", "250 2.0.0 Ok: queued as 4F2")).isEqualTo("Ok: queued as 4F2");
        assertThat(ReplyText.of(550, "5.1.1", "550 5.1.1 <gone@x.example>: mailbox unavailable"))
                .isEqualTo("<gone@x.example>: mailbox unavailable");
        assertThat(ReplyText.of(451, "4.7.1", "451-4.7.1 slow down\r\n451 4.7.1 try in 5 minutes"))
                .isEqualTo("slow down\ntry in 5 minutes");
    }

    @Test
    void aTextThatDoesNotStartWithTheCodeIsLeftAsItIs() {
        assertThat(ReplyText.of(250, null, "queued as 1")).isEqualTo("queued as 1");
        assertThat(ReplyText.of(550, "5.1.1", "in doubt: no answer to DATA")).isEqualTo("in doubt: no answer to DATA");
        assertThat(ReplyText.of(2500, null, "250 OK")).as("another code").isEqualTo("250 OK");
        assertThat(ReplyText.of(250, null, "2500 units")).as("not a reply code").isEqualTo("2500 units");
        assertThat(ReplyText.of(null, null, "250 OK")).as("no code beside it").isEqualTo("250 OK");
        assertThat(ReplyText.of(250, null, null)).isNull();
    }

    @Test
    void aReplyOfTheCodeAloneKeepsIt() {
        assertThat(ReplyText.of(250, null, "250")).isEqualTo("250");
        assertThat(ReplyText.of(250, "2.0.0", "250 2.0.0")).isEqualTo("250 2.0.0");
    }
}
