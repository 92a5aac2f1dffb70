package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a failed attempt leads to: another try after an exponential backoff with jitter while attempts
 * remain, else failure. Defaults as in Postfix: 300 s doubling up to 4,000 s.
 */
class RetryPolicyTest {

    static final LocalDateTime FAILED_AT = LocalDateTime.of(2030, 3, 14, 9, 26, 53, 123_000_000);
    static final long MIN = 300_000;
    static final long MAX = 4_000_000;

    /** Defaults: 100 attempts, so attempts remaining 100 means the first attempt failed. */
    RetryPolicy cut = new RetryPolicy(MIN, MAX, 0.25, 100);

    @Test
    void aMailWithAttemptsLeftAfterThisOneIsQueuedAgain() {
        assertThat(cut.statusAfterFailure(5)).isEqualTo(MailStatus.QUEUED);
        assertThat(cut.statusAfterFailure(2)).isEqualTo(MailStatus.QUEUED);
    }

    @Test
    void aMailWhoseLastAttemptFailedHasFailed() {
        assertThat(cut.statusAfterFailure(1)).isEqualTo(MailStatus.FAILED);
    }

    @Test
    void withoutJitterTheDelayDoublesFromTheMinimumUpToTheMaximum() {
        RetryPolicy exact = new RetryPolicy(MIN, MAX, 0, 100);
        assertThat(IntStream.rangeClosed(1, 7).mapToLong(failed -> exact.delayMillis(101 - failed, 0.5)))
                .containsExactly(300_000L, 600_000L, 1_200_000L, 2_400_000L, 4_000_000L, 4_000_000L, 4_000_000L);
    }

    @Test
    void jitterSpreadsEachDelayWithinAQuarterOfItselfButNeverBelowTheMinimumOrAboveTheMaximum() {
        assertThat(cut.delayMillis(100, 0.0)).as("1st failure, lowest draw").isEqualTo(MIN);
        assertThat(cut.delayMillis(100, 0.999_999)).as("1st failure, highest draw").isBetween(374_999L, 375_000L);
        assertThat(cut.delayMillis(98, 0.0)).as("3rd failure: 1,200 s less 25%").isEqualTo(900_000L);
        assertThat(cut.delayMillis(98, 0.999_999)).as("3rd failure: 1,200 s plus 25%").isBetween(1_499_999L, 1_500_000L);
        assertThat(cut.delayMillis(50, 0.0)).as("capped, lowest").isEqualTo(3_000_000L);
        assertThat(cut.delayMillis(50, 0.999_999)).as("capped, never above the maximum").isEqualTo(MAX);
    }

    @Test
    void mailsThatFailedTogetherComeBackAtDifferentTimes() {
        long distinct = IntStream.range(0, 50)
                .mapToObj(i -> cut.nextAttemptAt(FAILED_AT, 97))
                .distinct().count();
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
