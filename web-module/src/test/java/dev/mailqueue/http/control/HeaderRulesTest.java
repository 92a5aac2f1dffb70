package dev.mailqueue.http.control;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rules of the HTTP edge that read headers: Basic credentials (RFC 7617), media types
 * (RFC 9110 §8.3.1), body framing (RFC 9112 §6.3), request origins, and the counted body.
 */
class HeaderRulesTest {

    static String basic(String userAndPassword) {
        return "Basic " + java.util.Base64.getEncoder().encodeToString(userAndPassword.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void basicCredentialsAreUserAndPasswordAtTheFirstColon() {
        assertThat(BasicCredentials.parse(basic("admin:pa:ss"))).hasValue(new BasicCredentials("admin", "pa:ss"));
        assertThat(BasicCredentials.parse("basic " + basic("u:").substring(6))).hasValue(new BasicCredentials("u", ""));
        assertThat(BasicCredentials.parse(basic("J\u00fcrgen:x"))).get().extracting(BasicCredentials::user).isEqualTo("J\u00fcrgen");
    }

    @Test
    void malformedBasicCredentialsYieldNothing() {
        assertThat(BasicCredentials.parse(null)).isEmpty();
        assertThat(BasicCredentials.parse("Bearer abc")).isEmpty();
        assertThat(BasicCredentials.parse("Basic !!!")).isEmpty();
        assertThat(BasicCredentials.parse(basic("no-colon"))).isEmpty();
        assertThat(BasicCredentials.parse(basic(":password"))).isEmpty();
        assertThat(BasicCredentials.parse(basic("forged\nuser:x"))).as("control character in the user").isEmpty();
        assertThat(BasicCredentials.parse("Basic " + "A".repeat(5000))).isEmpty();
        assertThat(BasicCredentials.parse("Basic " + java.util.Base64.getEncoder().encodeToString(new byte[]{(byte) 0xff, ':', 'x'})))
                .as("not UTF-8").isEmpty();
        assertThat(new BasicCredentials("u", "secret").toString()).doesNotContain("secret");
    }

    @Test
    void onlyApplicationJsonInUtf8IsJson() {
        assertThat(MediaTypeHeader.parse("application/json").orElseThrow().isJson()).isTrue();
        assertThat(MediaTypeHeader.parse("Application/JSON; charset=\"UTF-8\"").orElseThrow().isJson()).isTrue();
        assertThat(MediaTypeHeader.parse("application/json;charset=latin1").orElseThrow().isJson()).isFalse();
        assertThat(MediaTypeHeader.parse("application/x-www-form-urlencoded").orElseThrow().isJson()).isFalse();
        assertThat(MediaTypeHeader.parse("text/plain").orElseThrow().isJson()).isFalse();
        assertThat(MediaTypeHeader.parse("application/json; boundary=x").orElseThrow().isJson()).isFalse();
    }

    @Test
    void aContentTypeThatIsNoMediaTypeIsMalformed() {
        for (String value : List.of("", ";;;", "application", "application/", "/json", "application/json;",
                "application/json; charset", "application/json; charset=", "application/json; a=1; a=2",
                "application/json; a=\"unterminated", "appli cation/json", "application/json x",
                "application/json; a=\"\u0001\"")) {
            assertThat(MediaTypeHeader.parse(value)).as("[%s]", value).isEmpty();
        }
    }

    @Test
    void bodyFramingMustBeUnambiguous() {
        assertThat(BodyFraming.of(List.of("12"), false).declared()).hasValue(12);
        assertThat(BodyFraming.of(List.of(), true).hasBody()).isTrue();
        assertThat(BodyFraming.of(List.of("0"), false).hasBody()).isFalse();
        assertThat(BodyFraming.of(List.of(), false).hasBody()).isFalse();
        for (List<String> lengths : List.of(List.of("12", "12"), List.of("12", "5"), List.of("12, 12"),
                List.of("-1"), List.of("0x10"), List.of(""), List.of("9".repeat(19)))) {
            assertThatThrownBy(() -> BodyFraming.of(lengths, false)).as("%s", lengths)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> BodyFraming.of(List.of("12"), true)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void overHttp2TheFramesDelimitTheBodySoARepeatedEqualLengthIsOneLength() {
        assertThat(BodyFraming.framed("HTTP/2.0")).isTrue();
        assertThat(BodyFraming.framed("HTTP/1.1")).isFalse();
        assertThat(BodyFraming.of(List.of("78", "78"), false, true).declared()).hasValue(78);
        for (List<String> lengths : List.of(List.of("78", "79"), List.of("78, 78"), List.of("78", "78", "x"))) {
            assertThatThrownBy(() -> BodyFraming.of(lengths, false, true)).as("%s over HTTP/2", lengths)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> BodyFraming.of(List.of("78", "78"), false, false)).as("over HTTP/1.1")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BodyFraming.of(List.of("78", "78"), true, true)).as("with Transfer-Encoding")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void stateChangingRequestsFromOtherSitesAreRefused() {
        OriginCheck check = OriginCheck.of("https://mail.example.com, http://proxy.example:8080");
        String own = "http://localhost:9080";

        assertThat(check.refusal("POST", null, null, own)).as("curl sends neither").isEmpty();
        assertThat(check.refusal("POST", "http://localhost:9080", "same-origin", own)).isEmpty();
        assertThat(check.refusal("DELETE", "HTTPS://MAIL.example.com:443", null, own)).isEmpty();
        assertThat(check.refusal("POST", "http://proxy.example:8080", null, own)).isEmpty();
        assertThat(check.refusal("GET", "http://evil.example", "cross-site", own)).as("reads are not checked").isEmpty();
        assertThat(check.refusal("POST", "http://evil.example", null, own)).isPresent();
        assertThat(check.refusal("POST", "null", null, own)).isPresent();
        assertThat(check.refusal("POST", "http://localhost:9081", null, own)).isPresent();
        assertThat(check.refusal("POST", null, "cross-site", own)).isPresent();
        assertThat(check.refusal("POST", null, "same-site", own)).isPresent();
        assertThat(check.refusal("PUT", null, "none", own)).isEmpty();
        assertThat(check.allowedOrigins()).containsExactlyInAnyOrder("https://mail.example.com", "http://proxy.example:8080");
        assertThatThrownBy(() -> OriginCheck.of("mail.example.com")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Set.copyOf(OriginCheck.SAFE_METHODS)).contains("GET", "HEAD");
    }

    @Test
    void aBodyIsCountedAgainstTheLimitAndItsContentLength() throws IOException {
        assertThat(new LimitedInputStream(new ByteArrayInputStream(new byte[10]), 10, 10).readAllBytes()).hasSize(10);
        assertThatThrownBy(() -> new LimitedInputStream(new ByteArrayInputStream(new byte[11]), 10, -1).readAllBytes())
                .isInstanceOfSatisfying(RequestBodyException.class, e -> assertThat(e.status()).isEqualTo(413));
        assertThatThrownBy(() -> new LimitedInputStream(new ByteArrayInputStream(new byte[5]), 10, 8).readAllBytes())
                .isInstanceOfSatisfying(RequestBodyException.class, e -> assertThat(e.status()).isEqualTo(400));
        InputStream brokenOff = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new EOFException("Connection closed");
            }
        };
        assertThatThrownBy(() -> new LimitedInputStream(brokenOff, 10, 8).read(new byte[4], 0, 4))
                .isInstanceOfSatisfying(RequestBodyException.class, e -> assertThat(e.status()).isEqualTo(400));
    }

    @Test
    void statusTextsAreFixedSentences() {
        assertThat(StatusTexts.title(413)).isEqualTo("Content Too Large");
        assertThat(StatusTexts.title(418)).isEqualTo("Client Error");
        assertThat(StatusTexts.detail(502)).isEqualTo("The request failed on the server.");
    }
}
