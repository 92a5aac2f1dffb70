package dev.mailqueue.address.control;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** VERP addresses: the plus-address form, within RFC 5321's 64 octets of local part, and read back from report headers. */
class VerpAddressTest {

    final VerpToken tokens = new VerpToken(VerpTokenTest.SECRET);

    @Test
    void theTokenGoesAfterAPlusInTheLocalPart() {
        String token = tokens.of(42, 0);

        assertThat(VerpAddress.of("bounces@example.com", token)).isEqualTo("bounces+" + token + "@example.com");
    }

    @Test
    void theLongestBounceLocalPartWithTheLargestMailIdFitsSixtyFourOctets() {
        String longest = "b".repeat(VerpAddress.MAX_BOUNCE_LOCAL_PART) + "@example.com";
        assertThat(VerpAddress.problem(longest)).isNull();

        String verp = VerpAddress.of(longest, tokens.of(Long.MAX_VALUE, VerpToken.MAX_RECIPIENTS - 1));

        String local = verp.substring(0, verp.lastIndexOf('@'));
        assertThat(local.getBytes(StandardCharsets.US_ASCII)).hasSize(VerpAddress.LOCAL_PART_OCTETS);
        assertThat(VerpAddress.problem("b" + longest)).contains("64 octets").contains("RFC 5321");
    }

    @Test
    void theTokenIsReadFromAnAddressAsReportHeadersCarryIt() {
        String token = tokens.of(7, 1);
        String verp = VerpAddress.of("bounces@example.com", token);

        assertThat(VerpAddress.token(verp)).hasValue(token);
        assertThat(VerpAddress.token("<" + verp + ">")).hasValue(token);
        assertThat(VerpAddress.token("Bounces <" + verp.toUpperCase() + ">").flatMap(tokens::read).orElseThrow().mailId()).isEqualTo(7);
        assertThat(VerpAddress.token("bounces@example.com")).isEmpty();
        assertThat(VerpAddress.token("bounces+@example.com")).isEmpty();
        assertThat(VerpAddress.token("no-at-sign+x")).isEmpty();
        assertThat(VerpAddress.token(null)).isEmpty();
    }

    @Test
    void aBounceAddressIsAPlainAddressWithoutPlus() {
        assertThat(VerpAddress.problem("bounces@example.com")).isNull();
        assertThat(VerpAddress.problem("bounce.s_1-x@mail.example.co.uk")).isNull();
        assertThat(VerpAddress.problem("bounces+x@example.com")).contains("no +");
        assertThat(VerpAddress.problem("bounces")).contains("local@domain");
        assertThat(VerpAddress.problem("@example.com")).contains("local@domain");
        assertThat(VerpAddress.problem("bounces@localhost")).contains("domain");
        assertThat(VerpAddress.problem("a..b@example.com")).isNotNull();
    }
}
