package dev.mailqueue.retention.control;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** Where the content step starts reading and where it stops. */
class ContentCutoffsTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @Test
    void contentGoesOnlyWhenItsDaysAreFewerThanTheMails() {
        assertThat(ContentCutoffs.of(NOW, 90, 7).removesContent()).isTrue();
        assertThat(ContentCutoffs.of(NOW, 90, 7).content()).isEqualTo(NOW.minus(Duration.ofDays(7)));
        assertThat(ContentCutoffs.of(NOW, 15, 15).removesContent()).as("the default: as long as the mail").isFalse();
        assertThat(ContentCutoffs.of(NOW, 15, 30).removesContent()).as("longer than the mail").isFalse();
    }

    @Test
    void theFirstRunReadsFromTheMailCutoffALaterOneFromADayBeforeTheLastCutoff() {
        ContentCutoffs cutoffs = ContentCutoffs.of(NOW, 90, 7);

        assertThat(cutoffs.firstHour(Instant.EPOCH)).as("no run yet: everything the mail delete leaves")
                .isEqualTo(Instant.parse("2029-12-14T09:00:00Z"));
        assertThat(cutoffs.firstHour(NOW.minus(Duration.ofDays(8)))).as("yesterday's run, less a day, whole hour")
                .isEqualTo(Instant.parse("2030-03-05T09:00:00Z"));
        assertThat(cutoffs.firstHour(NOW.minus(Duration.ofDays(200)))).as("a run long ago: never before the mail cutoff")
                .isEqualTo(Instant.parse("2029-12-14T09:00:00Z"));
    }
}
