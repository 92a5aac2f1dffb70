package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/** The one place that says what a mail's statuses mean agrees with itself and with the public enum. */
class MailLifecycleTest {

    @Test
    void everyStatusIsLiveFinishedOrHeldAndTheApisTerminalMeansNotLive() {
        for (MailStatus status : MailStatus.values()) {
            int kinds = (MailLifecycle.isLive(status) ? 1 : 0) + (MailLifecycle.isFinished(status) ? 1 : 0)
                    + (status == MailStatus.HELD ? 1 : 0);
            assertThat(kinds).as(status.name()).isEqualTo(1);
            assertThat(status.isTerminal()).as(status.name()).isEqualTo(!MailLifecycle.isLive(status));
        }
    }

    @Test
    void theSetsOfActionsAllowWhatTheTransitionsAllow() {
        MailLifecycle.CANCELLABLE.forEach(s -> assertThat(MailLifecycle.allows(s, MailStatus.CANCELLED)).as(s.name()).isTrue());
        MailLifecycle.REQUEUEABLE.forEach(s -> assertThat(MailLifecycle.allows(s, MailStatus.QUEUED)).as(s.name()).isTrue());
        assertThat(MailLifecycle.CANCELLABLE).containsAll(MailLifecycle.CANCELLABLE_BY_SENDER);
        assertThat(MailLifecycle.DELETABLE).doesNotContain(MailStatus.SENDING);
        assertThat(MailLifecycle.RETAINED_UNTIL_CUTOFF).as("retention deletes finished mail only")
                .isEqualTo(MailLifecycle.FINISHED).contains(MailStatus.SUPPRESSED).doesNotContain(MailStatus.HELD);
        assertThat(MailLifecycle.AT_ENQUEUE).containsExactlyInAnyOrder(MailStatus.QUEUED, MailStatus.SUPPRESSED);
    }

    @Test
    void aSentOrSuppressedMailNeverChangesAgainAndOnlyAClaimLeadsToSending() {
        assertThat(MailLifecycle.next(MailStatus.SENT)).isEmpty();
        assertThat(MailLifecycle.next(MailStatus.SUPPRESSED)).isEmpty();
        for (MailStatus from : MailStatus.values()) {
            assertThat(MailLifecycle.allows(from, MailStatus.SENDING)).as(from.name()).isEqualTo(from == MailStatus.QUEUED);
        }
        assertThat(MailLifecycle.next(MailStatus.SENDING)).as("what an attempt can make of a mail")
                .isEqualTo(EnumSet.of(MailStatus.QUEUED, MailStatus.SENT, MailStatus.FAILED, MailStatus.EXPIRED,
                        MailStatus.SUPPRESSED, MailStatus.HELD));
        assertThat(MailLifecycle.literals(EnumSet.of(MailStatus.FAILED, MailStatus.SENT))).isEqualTo("'SENT', 'FAILED'");
    }
}
