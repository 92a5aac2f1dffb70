package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.settings.control.RetryPolicy;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The status rules: what each verdict and a lost lease make of a mail. */
class TransitionTest {

    static final Instant T = Instant.parse("2030-03-14T09:26:53Z");
    static final RetryPolicy RETRY = new RetryPolicy(1000, 8000, 0, 5);

    static AttemptResult result(Verdict verdict, int attemptsRemaining, Instant expiresAt) {
        return new AttemptResult(1, new Lease(1, "o#1"), "s", "a", attemptsRemaining, expiresAt, T, T.plusSeconds(1), verdict,
                null, null, null, "why", List.of());
    }

    @Test
    void eachVerdictLeadsToItsStatus() {
        assertThat(Transition.after(result(Verdict.SENT, 5, null), RETRY, InDoubtPolicy.RESEND).status()).isEqualTo(MailStatus.SENT);
        assertThat(Transition.after(result(Verdict.PERMANENT, 5, null), RETRY, InDoubtPolicy.RESEND))
                .isEqualTo(new Transition(MailStatus.FAILED, 4, T.plusSeconds(1), "why"));
        assertThat(Transition.after(result(Verdict.EXPIRED, 5, null), RETRY, InDoubtPolicy.RESEND))
                .isEqualTo(new Transition(MailStatus.EXPIRED, 5, T.plusSeconds(1), "why"));
        assertThat(Transition.after(result(Verdict.TRANSIENT, 5, null), RETRY, InDoubtPolicy.RESEND))
                .isEqualTo(new Transition(MailStatus.QUEUED, 4, T.plusSeconds(2), "why"));
        assertThat(Transition.after(result(Verdict.TRANSIENT, 1, null), RETRY, InDoubtPolicy.RESEND).status())
                .isEqualTo(MailStatus.FAILED);
        assertThat(Transition.after(result(Verdict.TRANSIENT, 5, T.plusMillis(1500)), RETRY, InDoubtPolicy.RESEND).status())
                .isEqualTo(MailStatus.EXPIRED);
    }

    @Test
    void anInDoubtSendWaitsForTheBackoffOrIsHeld() {
        Transition resend = Transition.after(result(Verdict.IN_DOUBT, 5, null), RETRY, InDoubtPolicy.RESEND);
        assertThat(resend.status()).isEqualTo(MailStatus.QUEUED);
        assertThat(resend.notBefore()).as("never at once").isEqualTo(T.plusSeconds(2));
        assertThat(resend.attemptsRemaining()).isEqualTo(4);
        assertThat(Transition.after(result(Verdict.IN_DOUBT, 5, null), RETRY, InDoubtPolicy.HOLD).status())
                .isEqualTo(MailStatus.HELD);
        assertThat(Transition.after(result(Verdict.IN_DOUBT, 1, null), RETRY, InDoubtPolicy.RESEND).status())
                .as("no attempt left").isEqualTo(MailStatus.HELD);
    }

    @Test
    void aLostLeaseComesBackAsItWasUnlessSendingHadBegun() {
        assertThat(Transition.afterLostLease(new ExpiredLease(1, "dead#1", false, 5), InDoubtPolicy.RESEND, T))
                .satisfies(t -> {
                    assertThat(t.status()).isEqualTo(MailStatus.QUEUED);
                    assertThat(t.attemptsRemaining()).isEqualTo(5);
                });
        assertThat(Transition.afterLostLease(new ExpiredLease(1, "dead#1", true, 5), InDoubtPolicy.RESEND, T))
                .satisfies(t -> {
                    assertThat(t.status()).isEqualTo(MailStatus.QUEUED);
                    assertThat(t.attemptsRemaining()).isEqualTo(4);
                    assertThat(t.notBefore()).isEqualTo(T);
                });
        assertThat(Transition.afterLostLease(new ExpiredLease(1, "dead#1", true, 5), InDoubtPolicy.HOLD, T).status())
                .isEqualTo(MailStatus.HELD);
    }
}
