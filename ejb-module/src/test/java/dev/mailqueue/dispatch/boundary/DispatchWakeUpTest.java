package dev.mailqueue.dispatch.boundary;

import dev.mailqueue.dispatch.control.DispatchSignal;
import dev.mailqueue.dispatch.control.WakeUpChannel;
import dev.mailqueue.mail.control.MailsEnqueued;
import dev.mailqueue.settings.control.QueueSettingsTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** A burst of enqueues costs one or two scheduler passes, never one per mail, and mail due later wakes nobody. */
class DispatchWakeUpTest {

    private final AtomicInteger wakeTimers = new AtomicInteger();
    private final AtomicInteger passes = new AtomicInteger();
    private final AtomicInteger announcements = new AtomicInteger();
    private final DispatchWakeUp wakeUp = new DispatchWakeUp();

    @BeforeEach
    void wire() {
        wakeUp.signal = new DispatchSignal();
        wakeUp.settings = QueueSettingsTest.defaults("mailqueue.dispatch.interval.ms", "5000");
        wakeUp.scheduler = new DispatchScheduler() {
            @Override
            public void wake() {
                wakeTimers.incrementAndGet();
            }
        };
        wakeUp.channel = new WakeUpChannel() {
            @Override
            public void announce() {
                announcements.incrementAndGet();
            }
        };
    }

    private void enqueue(Instant due) {
        wakeUp.enqueued(new MailsEnqueued(1, due));
    }

    @Test
    void enqueuesWhileATimerIsSetCostOneTimerAndOnePass() {
        for (int i = 0; i < 100; i++) {
            enqueue(Instant.now());
        }
        wakeUp.serve(passes::incrementAndGet);

        assertThat(wakeTimers).hasValue(1);
        assertThat(passes).hasValue(1);
        assertThat(wakeUp.signal.generation()).isEqualTo(100);
    }

    @Test
    void enqueuesDuringAPassMakeItRunOnceMore() {
        enqueue(Instant.now());
        wakeUp.serve(() -> {
            if (passes.incrementAndGet() == 1) {
                for (int i = 0; i < 50; i++) {
                    enqueue(Instant.now());
                }
            }
        });

        assertThat(passes).hasValue(2);
        assertThat(wakeTimers).hasValue(1);
    }

    @Test
    void mailDueNowIsAnnouncedToTheOtherServersAndAnotherServersNoticeWakesLikeAnEnqueue() {
        enqueue(Instant.now());
        assertThat(announcements).as("announced once the enqueue committed").hasValue(1);

        wakeUp.serve(passes::incrementAndGet);
        wakeUp.notified(); // another server's announcement
        wakeUp.serve(passes::incrementAndGet);

        assertThat(announcements).as("a notice from another server is not announced again").hasValue(1);
        assertThat(wakeTimers).hasValue(2);
        assertThat(passes).hasValue(2);
        assertThat(wakeUp.signal.generation()).isEqualTo(2);
    }

    @Test
    void mailDueAfterTheNextTickSetsNoTimer() {
        enqueue(Instant.now().plusSeconds(60));

        assertThat(announcements).as("the other servers' timers find it when it falls due").hasValue(0);
        assertThat(wakeTimers).hasValue(0);
        assertThat(wakeUp.signal.generation()).isEqualTo(1); // running claimers still hear of it
    }

    @Test
    void aFailedPassDoesNotBlockLaterWakeUps() {
        enqueue(Instant.now());
        assertThatIllegalStateException().isThrownBy(() -> wakeUp.serve(() -> {
            throw new IllegalStateException("batch runtime down");
        }));

        enqueue(Instant.now());

        assertThat(wakeTimers).hasValue(2);
    }
}
