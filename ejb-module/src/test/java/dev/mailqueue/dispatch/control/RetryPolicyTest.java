package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;

import static org.assertj.core.api.Assertions.assertThat;

/** What a failed attempt leads to: another try after the delay while attempts remain, else failure. */
class RetryPolicyTest {

    static final LocalDateTime FAILED_AT = LocalDateTime.of(2030, 3, 14, 9, 26, 53, 123_000_000);

    RetryPolicy cut = new RetryPolicy(300_000);

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
    void theNextAttemptComesTheDelayAfterTheFailure() {
        assertThat(cut.nextAttemptAt(FAILED_AT)).isEqualTo(LocalDateTime.of(2030, 3, 14, 9, 31, 53, 123_000_000));
    }

    @Test
    void theDelayIsKeptToTheMillisecond() {
        assertThat(new RetryPolicy(1).nextAttemptAt(FAILED_AT)).isEqualTo(FAILED_AT.plusNanos(1_000_000));
    }

    @Test
    void withoutDelayTheNextAttemptMayComeAtOnce() {
        assertThat(new RetryPolicy(0).nextAttemptAt(FAILED_AT)).isEqualTo(FAILED_AT);
    }

    @Test
    void aDelayOfDaysDoesNotOverflow() {
        assertThat(new RetryPolicy(30L * 24 * 3600 * 1000).nextAttemptAt(FAILED_AT)).isEqualTo(FAILED_AT.plusDays(30));
    }
}
