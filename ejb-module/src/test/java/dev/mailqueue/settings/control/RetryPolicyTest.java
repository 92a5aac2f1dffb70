package dev.mailqueue.settings.control;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * When a failed attempt is tried again: an exponential backoff with jitter. Defaults as in Postfix:
 * 300 s doubling up to 4,000 s, each wait spread evenly over ±25 % of itself.
 */
class RetryPolicyTest {

    static final Instant FAILED_AT = Instant.parse("2030-03-14T09:26:53.123Z");
    static final long MIN = 300_000;
    static final long MAX = 4_000_000;

    /** Defaults: 100 attempts, so attempts remaining 100 means the first attempt failed. */
    RetryPolicy cut = new RetryPolicy(MIN, MAX, 0.25, 100);

    @Test
    void withoutJitterTheDelayDoublesFromTheMinimumUpToTheMaximum() {
        RetryPolicy exact = new RetryPolicy(MIN, MAX, 0, 100);
        assertThat(IntStream.rangeClosed(1, 7).mapToLong(failed -> exact.delayMillis(101 - failed, 0.5)))
                .containsExactly(300_000L, 600_000L, 1_200_000L, 2_400_000L, 4_000_000L, 4_000_000L, 4_000_000L);
    }

    @Test
    void jitterSpreadsEachDelayOverAQuarterOfItselfEitherWayWithoutClamping() {
        assertThat(cut.delayMillis(100, 0.0)).as("1st failure, lowest draw: 300 s less 25 %").isEqualTo(225_000L);
        assertThat(cut.delayMillis(100, 0.5)).as("1st failure, middle draw").isEqualTo(300_000L);
        assertThat(cut.delayMillis(100, 0.999_999)).as("1st failure, highest draw").isBetween(374_999L, 375_000L);
        assertThat(cut.delayMillis(50, 0.0)).as("capped, lowest").isEqualTo(3_000_000L);
        assertThat(cut.delayMillis(50, 0.999_999)).as("capped, highest").isBetween(4_999_998L, 5_000_000L);
    }

    @Test
    void jitteredFirstDelaysFillTheirWholeRangeEvenlyNotPiledUpAtTheMinimum() {
        long[] delays = LongStream.range(0, 10_000).map(i -> cut.delayMillis(100, i / 10_000.0)).toArray();
        long atMinimum = LongStream.of(delays).filter(d -> d == MIN).count();
        long below = LongStream.of(delays).filter(d -> d < MIN).count();
        assertThat(atMinimum).as("no pile-up at 300 s").isLessThan(10);
        assertThat(below).as("half the draws wait less than 300 s").isBetween(4_900L, 5_100L);
    }

    @Test
    void mailsThatFailedTogetherComeBackAtDifferentTimes() {
        long distinct = IntStream.range(0, 50).mapToObj(i -> cut.nextAttemptAt(FAILED_AT, 97)).distinct().count();
        assertThat(distinct).isGreaterThan(40);
        assertThat(cut.nextAttemptAt(FAILED_AT, 97))
                .isBetween(FAILED_AT.plus(Duration.ofMillis(1_800_000)), FAILED_AT.plus(Duration.ofMillis(3_000_000)));
    }

    @Test
    void aCountResetAboveTheMaximumIsTakenAsAFirstFailure() {
        assertThat(new RetryPolicy(MIN, MAX, 0, 3).delayMillis(10, 0.5)).isEqualTo(MIN);
    }

    @Test
    void hugeAttemptCountsDoNotOverflow() {
        assertThat(new RetryPolicy(MIN, MAX, 0, Integer.MAX_VALUE).delayMillis(1, 0.5)).isEqualTo(MAX);
    }

    @Test
    void withoutDelayTheNextAttemptMayComeAtOnce() {
        assertThat(new RetryPolicy(0, 0, 0.25, 5).nextAttemptAt(FAILED_AT, 3)).isEqualTo(FAILED_AT);
    }

    @Test
    void outOfRangeSettingsAreRefusedWithTheirNames() {
        assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(10, 5, 0, 1)).withMessageContaining("min <= max");
        assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(0, 5, 1.5, 1)).withMessageContaining("jitter");
        assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(0, 5, 0, 0)).withMessageContaining("attempts");
    }
}
