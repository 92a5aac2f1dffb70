package dev.mailqueue.bounce.boundary;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How long the intake waits after failed runs: longer with each, never more than 7 intervals. */
class BounceIntakeSchedulerTest {

    @Test
    void thePauseGrowsWithFailedRunsAndIsCapped() {
        assertThat(BounceIntakeScheduler.pause(60_000, 0)).isZero();
        assertThat(BounceIntakeScheduler.pause(60_000, 1)).isEqualTo(60_000);
        assertThat(BounceIntakeScheduler.pause(60_000, 2)).isEqualTo(180_000);
        assertThat(BounceIntakeScheduler.pause(60_000, 3)).isEqualTo(420_000);
        assertThat(BounceIntakeScheduler.pause(60_000, 50)).isEqualTo(420_000);
    }
}
