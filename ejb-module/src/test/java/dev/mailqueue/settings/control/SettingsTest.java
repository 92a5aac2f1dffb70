package dev.mailqueue.settings.control;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The one settings reader: values stripped and checked, every complaint naming the setting and what it got. */
class SettingsTest {

    final Settings cut = Settings.of(Map.of("n", " 42 ", "blank", "  ", "word", "lots", "neg", "-1", "f", "0.25",
            "b", "TRUE", "mode", "in-doubt", "list", " a, ,b ,c,"));

    enum Kind { IN_DOUBT, SENT }

    @Test
    void aWholeNumberIsReadWithinItsRange() {
        assertThat(cut.whole("n", 0, 100)).isEqualTo(42);
        assertThatIllegalStateException().isThrownBy(() -> cut.whole("n", 43, 100))
                .withMessage("configuration n must be within [43, 100], was 42");
        assertThatIllegalStateException().isThrownBy(() -> cut.whole("word", 0, Long.MAX_VALUE))
                .withMessage("configuration word must be a whole number, was 'lots'");
        assertThatIllegalStateException().isThrownBy(() -> cut.whole("neg", 0, Long.MAX_VALUE))
                .withMessage("configuration neg must be within [0, ...], was -1");
    }

    @Test
    void aRequiredSettingThatIsNotSetIsNamed() {
        assertThatIllegalStateException().isThrownBy(() -> cut.whole("missing", 0, 1))
                .withMessageStartingWith("configuration missing is not set");
        assertThatIllegalStateException().isThrownBy(() -> cut.text("missing"))
                .withMessageContaining("microprofile-config.properties");
    }

    @Test
    void aSettingMadeAtRunTimeFallsBackOnlyWhenUnsetOrBlank() {
        assertThat(cut.whole("missing", 0, 10, 7)).isEqualTo(7);
        assertThat(cut.whole("blank", 0, 10, 7)).isEqualTo(7);
        assertThat(cut.whole("n", 0, 100, 7)).isEqualTo(42);
        assertThatIllegalStateException().isThrownBy(() -> cut.whole("word", 0, 10, 7)).withMessageContaining("word");
    }

    @Test
    void fractionsBooleansChoicesAndLists() {
        assertThat(cut.fraction("f")).isEqualTo(0.25);
        assertThatIllegalStateException().isThrownBy(() -> cut.fraction("n")).withMessageContaining("[0, 1]");
        assertThat(cut.bool("b")).isTrue();
        assertThatIllegalStateException().isThrownBy(() -> cut.bool("word"))
                .withMessage("configuration word must be true or false, was 'lots'");
        assertThat(cut.choice("mode", Kind.class)).isEqualTo(Kind.IN_DOUBT);
        assertThatIllegalStateException().isThrownBy(() -> cut.choice("word", Kind.class))
                .withMessageContaining("[IN_DOUBT, SENT]");
        assertThat(cut.list("list")).containsExactly("a", "b", "c");
        assertThat(cut.list("missing")).isEmpty();
        assertThat(cut.optional("blank")).isEmpty();
        assertThat(cut.optional("n")).contains("42");
    }
}
