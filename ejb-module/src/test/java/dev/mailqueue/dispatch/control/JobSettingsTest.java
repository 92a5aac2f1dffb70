package dev.mailqueue.dispatch.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The dispatch job's numeric parameters: defaults when absent, clear errors naming the parameter when bad. */
class JobSettingsTest {

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  ", "\t"})
    void anAbsentValueTakesTheDefault(String value) {
        assertThat(JobSettings.positiveInt("batchSize", value, 100)).isEqualTo(100);
        assertThat(JobSettings.positiveLong("leaseMillis", value, 900_000L)).isEqualTo(900_000L);
    }

    @Test
    void aPositiveWholeNumberIsTakenEvenWithSpaces() {
        assertThat(JobSettings.positiveInt("batchSize", " 25 ", 100)).isEqualTo(25);
        assertThat(JobSettings.positiveInt("batchSize", "1", 100)).isEqualTo(1);
        assertThat(JobSettings.positiveLong("leaseMillis", "3000000000", 900_000L)).isEqualTo(3_000_000_000L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5"})
    void zeroOrLessIsRefusedNamingTheParameter(String value) {
        assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.positiveInt("batchSize", value, 100))
                .withMessage("job parameter batchSize must be at least 1, was " + value);
        assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.positiveLong("leaseMillis", value, 1))
                .withMessageContaining("leaseMillis");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ten", "1.5", "15m", "9223372036854775808"})
    void aValueThatIsNoWholeNumberIsRefusedNamingTheParameter(String value) {
        assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.positiveLong("leaseMillis", value, 1))
                .withMessage("job parameter leaseMillis must be a whole number, was " + value);
    }

    @Test
    void anIntBeyondItsRangeIsRefusedNotCut() {
        assertThat(JobSettings.positiveInt("batchSize", "2147483647", 100)).isEqualTo(Integer.MAX_VALUE);
        assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.positiveInt("batchSize", "2147483648", 100))
                .withMessage("job parameter batchSize must be at most 2147483647");
    }

    @Test
    void aRetryDelayMayBeZeroButNotNegative() {
        assertThat(JobSettings.nonNegativeLong("backoffMinMillis", "0", 300_000L)).isZero();
        assertThat(JobSettings.nonNegativeLong("backoffMinMillis", null, 300_000L)).isEqualTo(300_000L);
        assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.nonNegativeLong("backoffMinMillis", "-1", 1))
                .withMessage("job parameter backoffMinMillis must be at least 0, was -1");
    }
}
