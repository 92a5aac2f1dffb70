package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.dispatch.control.DeliveryOutcome.Verdict;
import org.junit.jupiter.api.Test;

import java.time.LocalDateTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What an attempt makes of its mail: sent, failed for good, queued after the backoff, or expired. */
class DispositionTest {

    static final LocalDateTime STARTED = LocalDateTime.of(2030, 3, 14, 9, 0);
    static final LocalDateTime FINISHED = STARTED.plusSeconds(2);
    static final RetryPolicy FIVE_MINUTES = new RetryPolicy(300_000, 300_000, 0, 5);

    @Test
    void aPermanentFailureFailsAtOnceWhateverAttemptsRemain() {
        Disposition next = Disposition.after(outcome(Verdict.PERMANENT, 5, null), FIVE_MINUTES);
        assertThat(next.status()).isEqualTo(MailStatus.FAILED);
        assertThat(next.attemptsRemaining()).isEqualTo(4);
    }

    @Test
    void aTransientFailureIsQueuedAfterTheBackoff() {
        Disposition next = Disposition.after(outcome(Verdict.TRANSIENT, 5, null), FIVE_MINUTES);
        assertThat(next.status()).isEqualTo(MailStatus.QUEUED);
        assertThat(next.notBefore()).isEqualTo(FINISHED.plusMinutes(5));
    }

    @Test
    void aTransientFailureOfTheLastAttemptFails() {
        assertThat(Disposition.after(outcome(Verdict.TRANSIENT, 1, null), FIVE_MINUTES).status())
                .isEqualTo(MailStatus.FAILED);
    }

    @Test
    void aTransientFailureWhoseNextAttemptWouldComeAfterTheExpiryExpiresNow() {
        Disposition next = Disposition.after(outcome(Verdict.TRANSIENT, 5, FINISHED.plusMinutes(4)), FIVE_MINUTES);
        assertThat(next.status()).isEqualTo(MailStatus.EXPIRED);
        assertThat(next.error()).contains("before the next attempt was due");

        assertThat(Disposition.after(outcome(Verdict.TRANSIENT, 5, FINISHED.plusMinutes(6)), FIVE_MINUTES).status())
                .as("still time for another attempt").isEqualTo(MailStatus.QUEUED);
    }

    @Test
    void aSentMailKeepsNoAttempts() {
        Disposition next = Disposition.after(outcome(Verdict.SENT, 3, null), FIVE_MINUTES);
        assertThat(next.status()).isEqualTo(MailStatus.SENT);
        assertThat(next.attemptsRemaining()).isZero();
    }

    private static DeliveryOutcome outcome(Verdict verdict, int remaining, LocalDateTime expiresAt) {
        return new DeliveryOutcome(1, remaining, expiresAt, STARTED, FINISHED, verdict,
                new SmtpReply(450, "450 4.2.1 busy"), "450 4.2.1 busy", List.of(), null);
    }
}
