package dev.mailqueue.bounce.control;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Each report field against its grammar: a value that breaks it is dropped, free text is clipped to its column. */
class ReportFieldsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "5.1.1|5.1.1", "5.1.1 (bad destination mailbox address)|5.1.1", " 4.2.2 |4.2.2", "2.0.0|2.0.0",
            "5.999.999|5.999.999", "4.7.1;spam|4.7.1"})
    void aStatusCodeOfRfc3464IsKept(String field, String code) {
        assertThat(ReportFields.status(field)).isEqualTo(code);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "3.1.1", "5.1", "5.1.1.1", "5.1000.1", "5.a.1", "55.1.1", "5.1.1111111111111111",
            "x5.1.1", "５.1.1"})
    void anythingElseIsNoStatus(String field) {
        assertThat(ReportFields.status(field)).isNull();
    }

    @Test
    void anAddressMustBeOneTheQueueCouldHaveSentTo() {
        assertThat(ReportFields.address("Pat@Example.org")).isEqualTo("Pat@Example.org");
        assertThat(ReportFields.address("a".repeat(65) + "@example.org")).as("local part over 64 octets").isNull();
        assertThat(ReportFields.address("a@" + "b".repeat(63) + "." + "c".repeat(63) + "." + "d".repeat(63) + "." + "e".repeat(63)))
                .as("over 254 octets").isNull();
        assertThat(ReportFields.address("not an address")).isNull();
        assertThat(ReportFields.address("a@b\r\nBcc: x@y")).isNull();
        assertThat(ReportFields.address("x".repeat(100_000))).isNull();
        assertThat(ReportFields.address(null)).isNull();
    }

    @Test
    void aMessageIdIsOneBracketedTokenThatFitsItsColumn() {
        assertThat(ReportFields.messageId(" <abc.def@mta.test> ")).isEqualTo("<abc.def@mta.test>");
        assertThat(ReportFields.messageId("<" + "a".repeat(252) + ">")).hasSize(254);
        assertThat(ReportFields.messageId("<" + "a".repeat(254) + ">")).as("256 characters").isNull();
        assertThat(ReportFields.messageId("<a b@c>")).isNull();
        assertThat(ReportFields.messageId("abc@mta.test")).isNull();
        assertThat(ReportFields.messageId("<a@b><c@d>")).isNull();
        assertThat(ReportFields.messageId("<é@b>")).isNull();
        assertThat(ReportFields.messageId(null)).isNull();
    }

    @Test
    void aFeedbackTypeIsATokenElseOther() {
        assertThat(ReportFields.feedbackType(" Abuse ")).isEqualTo("abuse");
        assertThat(ReportFields.feedbackType(null)).isEqualTo("abuse");
        assertThat(ReportFields.feedbackType("x".repeat(65))).isEqualTo("other");
        assertThat(ReportFields.feedbackType("abuse; drop table")).isEqualTo("other");
    }

    @Test
    void freeTextLosesItsControlCharactersAndIsClippedToItsColumn() {
        assertThat(ReportFields.text("550 5.1.1 <a@b>:\r\n\t Recipient\u0000 address rejected")).isEqualTo(
                "550 5.1.1 <a@b>: Recipient address rejected");
        assertThat(ReportFields.text("x".repeat(5_000))).hasSize(ReportFields.TEXT_CHARS);
        String emoji = "😀".repeat(600);
        String clipped = ReportFields.text(emoji);
        assertThat(clipped.length()).isLessThanOrEqualTo(ReportFields.TEXT_CHARS);
        assertThat(Character.isHighSurrogate(clipped.charAt(clipped.length() - 1))).as("no half a pair").isFalse();
        assertThat(ReportFields.text(" \r\n ")).isNull();
        assertThat(ReportFields.text(null)).isNull();
    }
}
