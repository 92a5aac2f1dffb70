package dev.mailqueue.address.control;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** The address table of issue 12: what {@link MailboxParser} accepts, in which form, and what it refuses. */
class MailboxParserTest {

    private static final String L64 = "a".repeat(64);
    private static final String L63 = "b".repeat(63);
    /** 32 characters, 64 octets in UTF-8: at the limit in octets. */
    private static final String E32 = "é".repeat(32);
    /** 33 characters, 66 octets: under 64 characters, over 64 octets. */
    private static final String E33 = "é".repeat(33);
    /** A domain of 4 labels of 63 characters: 255 characters with the dots. */
    private static final String D255 = String.join(".", L63, L63, L63, "c".repeat(59) + ".org");

    /** @return input, expected ASCII address, expected Unicode address, expected name */
    static Stream<Arguments> valid() {
        return Stream.of(
                arguments("jane@example.com", "jane@example.com", "jane@example.com", null),
                arguments("<jane@example.com>", "jane@example.com", "jane@example.com", null),
                arguments("Jane <jane@example.com>", "jane@example.com", "jane@example.com", "Jane"),
                arguments("Jane Doe <jane@example.com>", "jane@example.com", "jane@example.com", "Jane Doe"),
                arguments("\"Doe, Jane\" <jane@example.com>", "jane@example.com", "jane@example.com", "Doe, Jane"),
                arguments("\"Doe, Jane, Dr.\" <jane@example.com>", "jane@example.com", "jane@example.com", "Doe, Jane, Dr."),
                arguments("\"Pat \\\"The Cat\\\" Lee\" <pat@example.com>", "pat@example.com", "pat@example.com", "Pat \"The Cat\" Lee"),
                arguments("\"Pat (Sales)\" <pat@example.com>", "pat@example.com", "pat@example.com", "Pat (Sales)"),
                arguments("\"a\\\\b\" <ab@example.com>", "ab@example.com", "ab@example.com", "a\\b"),
                arguments("Jane Q. Public <jq@example.com>", "jq@example.com", "jq@example.com", "Jane Q. Public"),
                arguments("José Pérez <jose@example.com>", "jose@example.com", "jose@example.com", "José Pérez"),
                arguments("\"Müller, Jürgen\" <jm@example.de>", "jm@example.de", "jm@example.de", "Müller, Jürgen"),
                arguments("山田太郎 <taro@example.jp>", "taro@example.jp", "taro@example.jp", "山田太郎"),
                arguments("=?UTF-8?Q?Jos=C3=A9?= <j@example.com>", "j@example.com", "j@example.com", "José"),
                arguments("\"\" <empty@example.com>", "empty@example.com", "empty@example.com", null),
                arguments("pat@bücher.example", "pat@xn--bcher-kva.example", "pat@bücher.example", null),
                arguments("Pat <pat@BÜCHER.example>", "pat@xn--bcher-kva.example", "pat@bücher.example", "Pat"),
                arguments("pat@xn--bcher-kva.example", "pat@xn--bcher-kva.example", "pat@bücher.example", null),
                arguments("info@straße.de", "info@xn--strae-oqa.de", "info@straße.de", null),
                arguments("info@例え.jp", "info@xn--r8jz45g.jp", "info@例え.jp", null),
                arguments("x@пример.рф", "x@xn--e1afmkfd.xn--p1ai", "x@пример.рф", null),
                arguments("josé@example.test", "josé@example.test", "josé@example.test", null),
                arguments("José <josé@bücher.example>", "josé@xn--bcher-kva.example", "josé@bücher.example", "José"),
                arguments("用户@münchen.de", "用户@xn--mnchen-3ya.de", "用户@münchen.de", null),
                arguments("δοκιμή@παράδειγμα.δοκιμή", "δοκιμή@xn--hxajbheg2az3al.xn--jxalpdlp", "δοκιμή@παράδειγμα.δοκιμή", null),
                arguments(E32 + "@example.com", E32 + "@example.com", E32 + "@example.com", null),
                arguments(L64 + "@example.com", L64 + "@example.com", L64 + "@example.com", null),
                arguments("first.last+tag@example.com", "first.last+tag@example.com", "first.last+tag@example.com", null),
                arguments("o'brien@example.ie", "o'brien@example.ie", "o'brien@example.ie", null),
                arguments("jane@[192.0.2.1]", "jane@[192.0.2.1]", "jane@[192.0.2.1]", null),
                arguments("Jane <jane@example.com >", "jane@example.com", "jane@example.com", "Jane"),
                arguments("a@" + "d".repeat(63) + ".example", "a@" + "d".repeat(63) + ".example",
                        "a@" + "d".repeat(63) + ".example", null));
    }

    /** @return input, a fragment of the reason it is refused */
    static Stream<Arguments> invalid() {
        return Stream.of(
                arguments("", "blank"),
                arguments("   ", "blank"),
                arguments("jane", "not a valid e-mail address"),
                arguments("jane@", "not a valid e-mail address"),
                arguments("@example.com", "not a valid e-mail address"),
                arguments("a@b@example.com", "not a valid e-mail address"),
                arguments("jane@exa mple.com", "not a valid e-mail address"),
                arguments("jane@exa_mple.com", "not a valid e-mail address"),
                arguments("Jane <jane@example.com", "not a valid e-mail address"),
                arguments("Doe, Jane <jane@example.com>", "not a valid e-mail address"),
                arguments("a@example.com, b@example.com", "not a valid e-mail address"),
                arguments("\"Jane <jane@example.com>", "not a valid e-mail address"),
                arguments("jane@example.com\r\nBcc: x@example.com", "line break"),
                arguments("Jane\n <jane@example.com>", "line break"),
                arguments("Jane\t<jane@example.com>", "control characters"),
                arguments("Ja\u0000ne <jane@example.com>", "control characters"),
                arguments("Ja\u0085ne <jane@example.com>", "control characters"),
                arguments("=?UTF-8?Q?Ja=0D=0Ane?= <jane@example.com>", "name that contains a line break"),
                arguments("=?UTF-8?Q?Ja=07ne?= <jane@example.com>", "name that contains control characters"),
                arguments("jane@example.com (Jane)", "comment"),
                arguments("jane(work)@example.com", "comment"),
                arguments("Jane (work) <jane@example.com>", "comment"),
                arguments("Team: a@example.com, b@example.com;", "group"),
                arguments("Undisclosed recipients:;", "group"),
                arguments("\"a b\"@example.com", "quoted local part"),
                arguments("Jane <\"a,b\"@example.com>", "quoted local part"),
                arguments("\"" + "n".repeat(201) + "\" <n@example.com>", "name longer than 200"),
                arguments(L64 + "a@example.com", "local part longer than 64 octets"),
                arguments(E33 + "@example.com", "local part longer than 64 octets"),
                arguments("a@" + D255 + "x", "longer than 254 octets"),
                arguments("a@" + "e".repeat(64) + ".example", "label longer than 63 octets"),
                arguments("x@" + "ü".repeat(60) + ".example", "IDNA"),
                arguments("x@bü-.example", "IDNA"),
                arguments("x@-bü.example", "IDNA"),
                arguments("x@bü_cher.example", "not a valid e-mail address"),
                arguments("x@xn--bcher-kva9.example", "IDNA"),
                arguments("x@b\u200Dü.example", "not a valid e-mail address"),
                arguments("x@שלום1ü.example", "IDNA"),
                arguments("n".repeat(800) + "@example.com", "longer than"));
    }

    @ParameterizedTest
    @MethodSource("valid")
    void accepts(String text, String address, String unicodeAddress, String name) throws InvalidAddressException {
        Mailbox cut = MailboxParser.parse(text);

        assertThat(cut.address()).isEqualTo(address);
        assertThat(cut.unicodeAddress()).isEqualTo(unicodeAddress);
        assertThat(cut.name()).isEqualTo(name);
        assertThat(cut.needsSmtpUtf8()).isEqualTo(!cut.localPart().chars().allMatch(c -> c < 128));
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void refuses(String text, String reason) {
        assertThatThrownBy(() -> MailboxParser.parse(text))
                .isInstanceOf(InvalidAddressException.class)
                .hasMessageContaining(reason);
    }
}
