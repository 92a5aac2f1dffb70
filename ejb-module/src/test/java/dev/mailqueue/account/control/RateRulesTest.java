package dev.mailqueue.account.control;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The rate arithmetic: slots per minute, the 421 slow-down and its gradual recovery, day limits. */
class RateRulesTest {

    static final Instant NOW = Instant.parse("2030-05-06T12:00:00Z");

    @Test
    void aFreeSlotIsGivenUntilLimitSlotsAreBusy() {
        List<Instant> slots = new ArrayList<>(List.of(NOW.minusSeconds(1), NOW.plusSeconds(30), NOW));

        assertThat(RateRules.freeSlot(3, slots, NOW)).isZero();
        slots.set(0, NOW.plusSeconds(10));
        assertThat(RateRules.freeSlot(3, slots, NOW)).as("free from now on").isEqualTo(2);
        slots.set(2, NOW.plusSeconds(50));
        assertThat(RateRules.freeSlot(3, slots, NOW)).isEqualTo(-1);
    }

    @Test
    void aSlowedLimitCountsBusySlotsNotSlotNumbers() {
        List<Instant> slots = List.of(NOW.plusSeconds(5), NOW.minusSeconds(5), NOW.minusSeconds(5), NOW.minusSeconds(5));

        assertThat(RateRules.freeSlot(2, slots, NOW)).isEqualTo(1);
        assertThat(RateRules.freeSlot(1, slots, NOW)).isEqualTo(-1);
    }

    @Test
    void refusedMailsAreToldWhenTheBusySlotsFreeUpInOrder() {
        List<Instant> slots = List.of(NOW.plusSeconds(40), NOW.plusSeconds(10), NOW.plusSeconds(20));

        assertThat(RateRules.retryTimes(3, slots, NOW))
                .containsExactly(NOW.plusSeconds(10), NOW.plusSeconds(20), NOW.plusSeconds(40));
        // Slowed to 2 of 3 busy slots: the first slot to free up only brings the count to 2.
        assertThat(RateRules.retryTimes(2, slots, NOW)).containsExactly(NOW.plusSeconds(20), NOW.plusSeconds(40));

        SendPermit refused = new SendPermit("a", false, -1, null, RateRules.retryTimes(2, slots, NOW));
        assertThat(refused.retryAt(0)).isEqualTo(NOW.plusSeconds(20));
        assertThat(refused.retryAt(1)).isEqualTo(NOW.plusSeconds(40));
        assertThat(refused.retryAt(2)).as("a minute later in turn").isEqualTo(NOW.plusSeconds(80));
    }

    @Test
    void aSlotWhoseSendIsUnderWayIsExpectedFreeAMinuteAfterItWasTaken() {
        Instant takenJustNow = NOW.plus(RateRules.WINDOW).plus(RateRules.IN_FLIGHT);

        assertThat(RateRules.retryTimes(2, List.of(NOW.plusSeconds(30), takenJustNow), NOW))
                .containsExactly(NOW.plusSeconds(30), NOW.plusSeconds(60));
    }

    @Test
    void a421HalvesTheLimitOnceForABurstAndItGrowsBackByATenthPerQuietMinute() {
        RateRules.Slowed slowed = RateRules.slowDown(20, null, NOW);
        assertThat(slowed.limit()).isEqualTo(10);
        assertThat(RateRules.slowDown(20, slowed, NOW.plusSeconds(3))).as("same burst").isEqualTo(slowed);

        RateRules.Slowed again = RateRules.slowDown(20, slowed, NOW.plusSeconds(11));
        assertThat(again.limit()).isEqualTo(5);

        Instant t = NOW.plusSeconds(11);
        assertThat(RateRules.recover(20, again, t.plusSeconds(59))).isEqualTo(again);
        assertThat(RateRules.recover(20, again, t.plusSeconds(60)).limit()).isEqualTo(7);
        RateRules.Slowed later = RateRules.recover(20, again, t.plusSeconds(150));
        assertThat(later.limit()).isEqualTo(9);
        assertThat(later.since()).as("the half minute not yet used counts on").isEqualTo(t.plusSeconds(120));
        assertThat(RateRules.recover(20, again, t.plusSeconds(480))).as("back at 20").isNull();
    }

    @Test
    void theLimitNeverFallsBelowOneAndSmallLimitsGrowBackByOne() {
        RateRules.Slowed one = RateRules.slowDown(1, null, NOW);
        assertThat(one.limit()).isEqualTo(1);
        RateRules.Slowed two = RateRules.slowDown(4, null, NOW);
        assertThat(two.limit()).isEqualTo(2);
        assertThat(RateRules.recover(4, two, NOW.plusSeconds(60)).limit()).isEqualTo(3);
    }

    @Test
    void daysAreUtcCalendarDays() {
        assertThat(RateRules.dayStart(NOW)).isEqualTo(Instant.parse("2030-05-06T00:00:00Z"));
        assertThat(RateRules.nextDay(NOW)).isEqualTo(Instant.parse("2030-05-07T00:00:00Z"));
    }

    @Test
    void freeSlotsCountsTheSlotsFreeNowUpToTheLimitInForce() {
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        List<Instant> freeAt = List.of(now.minusSeconds(1), now, now.plusSeconds(1), now.plusSeconds(30));
        assertThat(RateRules.freeSlots(4, freeAt, now)).isEqualTo(2);
        assertThat(RateRules.freeSlots(2, freeAt, now)).as("a slow-down's lower limit: 2 busy of 2").isZero();
        assertThat(RateRules.freeSlots(3, freeAt, now.plusSeconds(30))).isEqualTo(3);
    }
}
