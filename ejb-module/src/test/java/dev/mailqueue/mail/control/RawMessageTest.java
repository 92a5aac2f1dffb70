package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RawMessageTest {

    private static final Instant NOW = Instant.parse("2026-11-27T10:15:30Z");

    @Test
    void storedMessageLosesBccGainsMessageIdAndDateAndKeepsEveryOtherOctet() throws Exception {
        String header = "From: Shop <billing@shop.example>\r\n"
                + "Bcc: hidden@raw.example,\r\n  other@raw.example\r\n"
                + "To: a@raw.example\r\n"
                + "Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\r\n";
        String body = "\r\nline one\nline two without CR\r\n";
        RawMessage message = RawMessage.parse(ascii(header + body));

        String stored = new String(message.stored("<id-1@shop.example>", NOW), StandardCharsets.US_ASCII);

        assertThat(stored).startsWith("Message-ID: <id-1@shop.example>\r\nDate: Fri, 27 Nov 2026 10:15:30 +0000 (UTC)\r\n");
        assertThat(stored).endsWith("From: Shop <billing@shop.example>\r\nTo: a@raw.example\r\n"
                + "Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\r\n" + body);
        assertThat(message.recipients("Bcc")).containsExactly("hidden@raw.example", "other@raw.example");
        assertThat(message.subject()).isEqualTo("Grüße");
        assertThat(message.utf8Headers()).isFalse();
    }

    @Test
    void ownMessageIdAndDateAreKeptAndNothingIsAdded() throws Exception {
        byte[] source = ascii("Date: Thu, 26 Nov 2026 08:00:00 +0000\r\nMessage-ID: <own@shop.example>\r\n"
                + "From: a@shop.example\r\nTo: b@raw.example\r\n\r\nbody\r\n");
        RawMessage message = RawMessage.parse(source);

        assertThat(message.messageId()).contains("<own@shop.example>");
        assertThat(message.stored("<other@shop.example>", NOW)).isEqualTo(source);
    }

    @Test
    void utf8HeaderFieldsAreTakenAndMarked() throws Exception {
        RawMessage message = RawMessage.parse(("From: jörg@shop.example\r\nTo: b@raw.example\r\nSubject: Grüße\r\n\r\nx\r\n")
                .getBytes(StandardCharsets.UTF_8));

        assertThat(message.utf8Headers()).isTrue();
        assertThat(message.subject()).isEqualTo("Grüße");
        assertThat(message.from().get(0).getAddress()).isEqualTo("jörg@shop.example");
    }

    @Test
    void aMessageWithoutBodyIsAMessage() throws Exception {
        RawMessage message = RawMessage.parse(ascii("From: a@shop.example\r\nTo: b@raw.example"));

        assertThat(message.recipients("To")).containsExactly("b@raw.example");
        assertThat(message.bodyStart()).isEqualTo(39);
    }

    @Test
    void groupsAreTheirMembers() throws Exception {
        RawMessage message = RawMessage.parse(ascii("From: a@shop.example\r\nTo: Team: b@raw.example, c@raw.example;\r\n"
                + "Cc: undisclosed-recipients:;\r\n\r\nx"));

        assertThat(message.recipients("To")).containsExactly("b@raw.example", "c@raw.example");
        assertThat(message.recipients("Cc")).isEmpty();
    }

    @Test
    void faultsAreNamed() {
        assertRefused(new byte[0], "message", "is empty");
        assertRefused(ascii(" folded first\r\nFrom: a@shop.example\r\n\r\n"), "message", "line 1 begins with a blank");
        assertRefused(ascii("From a@shop.example Thu Nov 26 2026\r\nFrom: a@shop.example\r\n\r\n"), "message",
                "line 1 is neither a header field");
        assertRefused(ascii("From: a@shop.example\r\nX: " + "y".repeat(996) + "\r\n\r\n"), "message",
                "line 2 is 999 octets long");
        assertRefused(ascii("From: a@shop.example\r\n\r\nnul \0 here\r\n"), "message", "line 3 holds a NUL octet");
        assertRefused("From: a@shop.example\r\nSubject: Gr\u00fc\u00dfe\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
                "message.Subject", "not UTF-8");
        assertRefused(ascii("To: b@raw.example\r\n\r\n"), "message.From", "is required");
        assertRefused(ascii("From: a@shop.example, b@shop.example\r\n\r\n"), "message.Sender", "more than one author");
        assertRefused(ascii("From: a@shop.example\r\nSubject: one\r\nSubject: two\r\n\r\n"), "message.Subject",
                "more than once");
        assertRefused(ascii("From: a@shop.example\r\nMessage-ID: <no-at-sign>\r\n\r\n"), "message.Message-ID", "msg-id");
        assertRefused(ascii("From: a@shop.example\r\nMessage-ID: <a@b> <c@d>\r\n\r\n"), "message.Message-ID", "msg-id");
        assertRefused(ascii("From: a@shop.example\r\nTo: <<broken\r\n\r\n"), "message.To", "address list");
    }

    @Test
    void aLineOf998OctetsIsTaken() throws Exception {
        RawMessage.parse(ascii("From: a@shop.example\r\nX: " + "y".repeat(995) + "\r\n\r\n" + "z".repeat(998) + "\n"));
    }

    private static void assertRefused(byte[] message, String field, String reason) {
        assertThatThrownBy(() -> RawMessage.parse(message))
                .isInstanceOfSatisfying(InvalidMailException.class, e -> assertThat(e.getErrors())
                        .extracting(FieldError::getField, FieldError::getMessage)
                        .anySatisfy(t -> {
                            assertThat(t.toList().get(0)).isEqualTo(field);
                            assertThat((String) t.toList().get(1)).contains(reason);
                        }));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
