package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.mime.control.HeaderLimits;
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
        RawMessage message = parse(ascii(header + body));

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
        RawMessage message = parse(source);

        assertThat(message.messageId()).contains("<own@shop.example>");
        assertThat(message.stored("<other@shop.example>", NOW)).isEqualTo(source);
    }

    @Test
    void utf8HeaderFieldsAreTakenAndMarked() throws Exception {
        RawMessage message = parse(("From: jörg@shop.example\r\nTo: b@raw.example\r\nSubject: Grüße\r\n\r\nx\r\n")
                .getBytes(StandardCharsets.UTF_8));

        assertThat(message.utf8Headers()).isTrue();
        assertThat(message.subject()).isEqualTo("Grüße");
        assertThat(message.from().get(0).getAddress()).isEqualTo("jörg@shop.example");
    }

    @Test
    void aMessageWithoutBodyIsAMessage() throws Exception {
        RawMessage message = parse(ascii("From: a@shop.example\r\nTo: b@raw.example"));

        assertThat(message.recipients("To")).containsExactly("b@raw.example");
        assertThat(message.bodyStart()).isEqualTo(39);
    }

    @Test
    void groupsAreTheirMembers() throws Exception {
        RawMessage message = parse(ascii("From: a@shop.example\r\nTo: Team: b@raw.example, c@raw.example;\r\n"
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
        parse(ascii("From: a@shop.example\r\nX: " + "y".repeat(995) + "\r\n\r\n" + "z".repeat(998) + "\n"));
    }

    private static void assertRefused(byte[] message, String field, String reason) {
        assertThatThrownBy(() -> parse(message))
                .isInstanceOfSatisfying(InvalidMailException.class, e -> assertThat(e.getErrors())
                        .extracting(FieldError::getField, FieldError::getMessage)
                        .anySatisfy(t -> {
                            assertThat(t.toList().get(0)).isEqualTo(field);
                            assertThat((String) t.toList().get(1)).contains(reason);
                        }));
    }

    @Test
    void aBareCrThatWouldHideASecondFromIsRefusedNamingItsLine() {
        // Jakarta Mail's InternetHeaders ends a line at the CR and would read two From fields, the hidden one first
        assertRefused(ascii("X-Note: a\rFrom: ceo@victim.example\r\nFrom: me@allowed.example\r\nTo: b@raw.example\r\n\r\nx"),
                "message", "line 1 holds a CR that is not followed by LF");
        assertRefused(ascii("From: me@allowed.example\r\nTo: b@raw.example\r\n\r\r\nFrom: ceo@victim.example\r\n\r\nx"),
                "message", "line 3 holds a CR");
        assertRefused(ascii("From: me@allowed.example\r\nSubject: cut\r"), "message", "line 2 holds a CR");
    }

    @Test
    void aBareCrInTheBodyIsTheBodysAffair() throws Exception {
        RawMessage message = parse(ascii("From: me@allowed.example\r\n\r\nfirst\rsecond\r\n"));

        assertThat(message.from()).extracting(a -> a.getAddress()).containsExactly("me@allowed.example");
    }

    @Test
    void headerLinesEndedByLfAloneAreStoredWithCrlfAndTheBodyAsItCame() throws Exception {
        byte[] source = ascii("Message-ID: <own@shop.example>\nDate: Thu, 26 Nov 2026 08:00:00 +0000\n"
                + "From: a@shop.example\nSubject: folded\n over two lines\nTo: b@raw.example\n\nbody\nline\n");

        String stored = new String(parse(source).stored("<x@shop.example>", NOW), StandardCharsets.US_ASCII);

        assertThat(stored).isEqualTo("Message-ID: <own@shop.example>\r\nDate: Thu, 26 Nov 2026 08:00:00 +0000\r\n"
                + "From: a@shop.example\r\nSubject: folded\r\n over two lines\r\nTo: b@raw.example\r\n\r\nbody\nline\n");
    }

    @Test
    void theHeaderSectionIsCappedInFieldsAndBytes() throws Exception {
        HeaderLimits limits = new HeaderLimits(16, 1_024);
        StringBuilder fifteen = new StringBuilder("From: a@shop.example\r\n");
        for (int i = 1; i < 16; i++) {
            fifteen.append("X-").append(i).append(": v\r\n");
        }
        RawMessage.parse(ascii(fifteen + "\r\nbody"), limits); // 16 fields: the cap itself

        assertThatThrownBy(() -> RawMessage.parse(ascii(fifteen + "a:\r\n\r\nbody"), limits))
                .isInstanceOf(InvalidMailException.class).hasMessageContaining("at most 16 are allowed")
                .hasMessageContaining(HeaderLimits.MAX_FIELDS);
        String big = "From: a@shop.example\r\n" + ("X: " + "y".repeat(95) + "\r\n").repeat(11);
        assertThatThrownBy(() -> RawMessage.parse(ascii(big + "\r\nbody"), limits))
                .isInstanceOf(InvalidMailException.class).hasMessageContaining("longer than 1024 bytes at line 12")
                .hasMessageContaining(HeaderLimits.MAX_BYTES);
        // the same under the shipped limits: the body's size is not the header's
        parse(ascii(big + "\r\n" + "z".repeat(900) + "\r\n"));
    }

    /**
     * Whatever the queue takes, Jakarta Mail's own header parser (which ends a line at CR, LF or CRLF) reads the
     * stored message as the same fields in the same order: a check that shares no code with {@link HeaderSection}.
     * On main 67a2b04 the bare-CR cases were taken and InternetHeaders read a From that the queue never saw.
     */
    @Test
    void everyMessageTakenReadsTheSameToJakartaMail() throws Exception {
        java.util.Random random = new java.util.Random(47);
        String[] pieces = {"From: a@shop.example", "X-Note: a", "To: b@raw.example", " folded", "\t", "\r", "\n",
                "\r\n", ":", "Subject: s", "v"};
        int taken = 0;
        for (int round = 0; round < 20_000; round++) {
            StringBuilder text = new StringBuilder("From: me@allowed.example\r\n");
            int parts = 1 + random.nextInt(8);
            for (int i = 0; i < parts; i++) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            text.append("\r\n\r\nbody\r\n");
            RawMessage message;
            try {
                message = parse(ascii(text.toString()));
            } catch (InvalidMailException refused) {
                continue;
            }
            taken++;
            byte[] stored = message.stored("<id@shop.example>", NOW);
            jakarta.mail.internet.InternetHeaders read = new jakarta.mail.internet.InternetHeaders(
                    new java.io.ByteArrayInputStream(stored), true);
            java.util.List<String> names = new java.util.ArrayList<>();
            read.getAllHeaders().asIterator().forEachRemaining(h -> names.add(h.getName()));
            java.util.List<String> expected = new java.util.ArrayList<>();
            if (!message.has("Message-ID")) {
                expected.add("Message-ID");
            }
            if (!message.has("Date")) {
                expected.add("Date");
            }
            message.fields().stream().map(RawMessage.Field::name).forEach(expected::add);
            assertThat(names).as("fields of %s", text.toString().replace("\r", "<CR>").replace("\n", "<LF>"))
                    .isEqualTo(expected);
            assertThat(read.getHeader("From")).as("From of %s", text).hasSize(1);
        }
        assertThat(taken).as("messages taken (the check must leave some to compare)").isGreaterThan(1_000);
    }

    /** A message handed in again through another relay differs in its leading trace fields only: the same request. */
    @Test
    void theFingerprintOfARawMailLeavesOutTheLeadingTraceFieldsAndNothingElse() throws Exception {
        String own = "From: a@shop.example\r\nReceived: kept, it is not leading\r\nTo: b@raw.example\r\n\r\nbody\r\n";
        String once = "Received: from client1 by mq; Fri, 27 Nov 2026 10:00:00 +0000\r\n" + own;
        String again = "Received: from client2\r\n by mq; Fri, 27 Nov 2026 10:05:00 +0000\r\nReceived: from mua\r\n" + own;

        assertThat(fingerprint(once)).isEqualTo(fingerprint(own)).isEqualTo(fingerprint(again));
        assertThat(fingerprint(own.replace("body", "bodY"))).isNotEqualTo(fingerprint(own));
        assertThat(fingerprint(own.replace("kept, it", "changed, it"))).as("a Received field after the first other field")
                .isNotEqualTo(fingerprint(own));
        assertThat(parse(ascii("Received: x\r\nFrom: a@shop.example\r\nTo: b@raw.example\r\n\r\nx")).traceEnd()).isEqualTo(13);
    }

    private static String fingerprint(String message) throws Exception {
        byte[] bytes = ascii(message);
        return RequestFingerprint.of(new dev.mailqueue.api.RawMail(bytes), parse(bytes).traceEnd());
    }

    private static RawMessage parse(byte[] source) throws InvalidMailException {
        return RawMessage.parse(source, HeaderLimits.DEFAULTS);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
