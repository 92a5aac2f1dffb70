package dev.mailqueue.http.control;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One strict JSON text per body: what is read, and what is refused before anything is bound. */
class StrictJsonTest {

    static JsonValue read(String body) throws IOException {
        return StrictJson.read(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void oneObjectWithWhitespaceAroundIsRead() throws IOException {
        JsonValue value = read("  {\"from\": \"a@b.example\", \"to\": [\"c@d.example\"], \"priority\": 7}\n");

        assertThat(((JsonObject) value).getString("from")).isEqualTo("a@b.example");
        assertThat(((JsonObject) value).getJsonNumber("priority").intValue()).isEqualTo(7);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1} xyz", "{\"a\":1}{\"a\":2}", "[1] [2]", "{\"a\":1},", "\"x\" 1"})
    void contentAfterTheValueIsRefused(String body) {
        assertThatThrownBy(() -> read(body)).isInstanceOf(StrictJson.MalformedJsonException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "{", "{\"a\":}", "{'a':1}", "{\"a\":01}", "{\"a\":NaN}", "[1,]", "\uFEFF{}"})
    void whatIsNotJsonIsRefused(String body) {
        assertThatThrownBy(() -> read(body)).isInstanceOf(StrictJson.MalformedJsonException.class);
    }

    /** The fuzzer's 500s of issue 47: numbers the parser could not or should not turn into a BigDecimal. */
    @Test
    void hugeNumbersAreRefusedNamingTheirMemberBeforeTheyAreParsed() {
        String digits = "9".repeat(1_000_000);
        assertRefused("{\"priority\": " + digits + "}", "priority", "1000000 characters");
        assertRefused("{\"from\": \"a@b.example\", \"unknown\": -" + digits + "}", "unknown", "characters");
        assertRefused("{\"priority\": 1e2147483648}", "priority", "out of range");
        assertRefused("{\"priority\": 1e-999999}", "priority", "out of range");
        assertRefused("[{\"to\": [\"x\"]}, {\"template\": {\"variables\": {\"n\": [1, 2e401]}}}]",
                "[1].template.variables.n[1]", "out of range");
    }

    @Test
    void numbersWithinTheBoundsAreRead() throws IOException {
        String longest = "-" + "1".repeat(StrictJson.MAX_NUMBER_CHARS - 8) + ".5e+400";
        JsonObject value = (JsonObject) read("{\"a\": " + longest + ", \"b\": 1e-400, \"c\": 9223372036854775807}");

        assertThat(value.getJsonNumber("a").bigDecimalValue().scale()).isEqualTo(-399);
        assertThat(longest).hasSize(StrictJson.MAX_NUMBER_CHARS);
        assertThat(value.getJsonNumber("c").longValueExact()).isEqualTo(Long.MAX_VALUE);
    }

    private static void assertRefused(String body, String field, String reason) {
        assertThatThrownBy(() -> read(body)).isInstanceOfSatisfying(StrictJson.MalformedJsonException.class,
                e -> assertThat(e.errors()).singleElement().satisfies(error -> {
                    assertThat(error.getField()).isEqualTo(field);
                    assertThat(error.getMessage()).contains(reason);
                }));
    }

    @Test
    void aNameGivenTwiceInOneObjectIsRefusedAndNamed() {
        assertThatThrownBy(() -> read("{\"from\":\"a@x.example\",\"to\":[],\"from\":\"ceo@bank.example\"}"))
                .isInstanceOf(StrictJson.MalformedJsonException.class).hasMessageContaining("\"from\" twice");
    }

    @Test
    void theSameNameInTwoObjectsIsFine() throws IOException {
        assertThat(read("[{\"a\":1},{\"a\":2}]").asJsonArray()).hasSize(2);
    }

    @Test
    void nestingDeeperThanTheLimitIsRefused() throws IOException {
        String ok = "[".repeat(StrictJson.MAX_DEPTH) + "]".repeat(StrictJson.MAX_DEPTH);
        String deep = "[".repeat(StrictJson.MAX_DEPTH + 1) + "]".repeat(StrictJson.MAX_DEPTH + 1);

        assertThat(read(ok)).isNotNull();
        assertThatThrownBy(() -> read(deep)).isInstanceOf(StrictJson.MalformedJsonException.class)
                .hasMessageContaining("deeper");
    }

    @Test
    void bytesThatAreNotUtf8AreRefused() {
        byte[] latin1 = "{\"subject\":\"Gr\u00fc\u00dfe\"}".getBytes(StandardCharsets.ISO_8859_1);

        assertThatThrownBy(() -> StrictJson.read(new ByteArrayInputStream(latin1)))
                .isInstanceOf(StrictJson.MalformedJsonException.class).hasMessageContaining("UTF-8");
    }

    @Test
    void hugeNumbersAreReadExactlyForTheBinderToJudge() throws IOException {
        JsonObject value = (JsonObject) read("{\"p\": 1e400, \"q\": 9223372036854775808}");

        assertThat(value.getJsonNumber("p").bigDecimalValue()).isEqualByComparingTo("1e400");
        assertThat(value.getJsonNumber("q").bigIntegerValue()).hasToString("9223372036854775808");
    }

    @Test
    void theBodyLimitOfTheStreamStopsTheReadingWith413() {
        InputStream body = new LimitedInputStream(new ByteArrayInputStream(
                ("{\"text\":\"" + "x".repeat(10_000) + "\"}").getBytes(StandardCharsets.UTF_8)), 1_000, -1);

        assertThatThrownBy(() -> StrictJson.read(body)).isInstanceOfSatisfying(RequestBodyException.class,
                e -> assertThat(e.status()).isEqualTo(413));
    }

    @Test
    void theParsersMessageNeverEchoesTheBody() {
        assertThatThrownBy(() -> read("{\"a\": secret-token-123}"))
                .isInstanceOf(StrictJson.MalformedJsonException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret", "token"));
    }
}
