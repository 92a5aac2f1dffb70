package dev.mailqueue.mail.control;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The Message-ID a mail gets at enqueue and keeps on every attempt (RFC 5322 3.6.4). */
class MessageIdFactoryTest {

    static final String UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

    MessageIdFactory cut;

    @BeforeEach
    void factory() {
        cut = new MessageIdFactory();
        cut.domain = Optional.empty();
    }

    @Test
    void withoutAConfiguredDomainTheSendersDomainIsUsed() {
        assertThat(cut.create("billing@shop.example.com")).matches("<" + UUID + "@shop\\.example\\.com>");
    }

    @Test
    void aConfiguredDomainIsUsedForEverySender() {
        cut.domain = Optional.of("mailqueue.example.org");

        assertThat(cut.create("billing@shop.example.com")).matches("<" + UUID + "@mailqueue\\.example\\.org>");
    }

    @Test
    void aBlankConfiguredDomainCountsAsNone() {
        cut.domain = Optional.of("  ");

        assertThat(cut.create("billing@shop.example.com")).endsWith("@shop.example.com>");
    }

    @Test
    void everyMailGetsItsOwnId() {
        assertThat(cut.create("a@example.com")).isNotEqualTo(cut.create("a@example.com"));
    }

    @Test
    void theIdFitsItsColumnForTheLongestSenderDomainAnAddressMayHave() {
        String domain = "d".repeat(63) + "." + "d".repeat(63) + "." + "d".repeat(63) + "." + "d".repeat(56) + ".com";
        String sender = "a@" + domain; // 254 octets, the most an address may have

        assertThat(sender).hasSize(254);
        assertThat(cut.create(sender)).hasSizeLessThanOrEqualTo(255);
    }
}
