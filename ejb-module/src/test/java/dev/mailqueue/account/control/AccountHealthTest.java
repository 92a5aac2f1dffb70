package dev.mailqueue.account.control;

import dev.mailqueue.settings.control.QueueSettingsTest;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The circuit breaker per account: down on the first failed connection, one probe per cool-down. */
class AccountHealthTest {

    static final Instant T = Instant.parse("2030-03-14T09:26:53Z");

    AccountHealth cut = AccountHealth.of(QueueSettingsTest.defaults("mailqueue.smtp.cool-down.ms", "10000"));

    @Test
    void anAccountIsUpUntilAConnectionFails() {
        assertThat(cut.refusedUntil("relay", T)).isNull();
        assertThat(cut.down()).isEmpty();
    }

    @Test
    void afterAFailedConnectionNobodyTriesItUntilTheCoolDownIsOverThenExactlyOneClaimerProbes() {
        Instant retryAt = cut.unreachable("relay", "Connection refused", T);

        assertThat(retryAt).isEqualTo(T.plusSeconds(10));
        assertThat(cut.refusedUntil("relay", T.plusSeconds(5))).isEqualTo(retryAt);
        assertThat(cut.refusedUntil("relay", T.plusSeconds(10))).as("the probe").isNull();
        assertThat(cut.refusedUntil("relay", T.plusSeconds(10))).as("everyone else while it probes").isNotNull();
        assertThat(cut.down()).containsOnlyKeys("relay");
        assertThat(cut.outages()).isEqualTo(1);
    }

    @Test
    void aFailedProbeStartsAnotherCoolDownAndASuccessfulOneBringsTheAccountBack() {
        cut.unreachable("relay", "Connection refused", T);
        assertThat(cut.refusedUntil("relay", T.plusSeconds(10))).isNull();
        assertThat(cut.unreachable("relay", "still refused", T.plusSeconds(10))).isEqualTo(T.plusSeconds(20));
        assertThat(cut.down().get("relay").since()).as("down since the first failure").isEqualTo(T);
        assertThat(cut.outages()).as("one outage").isEqualTo(1);

        assertThat(cut.refusedUntil("relay", T.plusSeconds(20))).isNull();
        cut.reached("relay");
        assertThat(cut.down()).isEmpty();
        assertThat(cut.refusedUntil("relay", T.plusSeconds(20))).isNull();
    }
}
