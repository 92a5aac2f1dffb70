package dev.mailqueue.submission.control;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Failed logins per address: a lockout after the threshold, reported once, over after its time, memory bounded. */
class AddressLockoutTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final List<InetAddress> reported = new ArrayList<>();

    @Test
    void theThresholdthFailureLocksTheAddressOutAndOnlyThatAddress() throws Exception {
        AddressLockout cut = new AddressLockout(3, 60_000, 100, now::get, reported::add);
        InetAddress guesser = InetAddress.getByName("192.0.2.1");
        InetAddress other = InetAddress.getByName("192.0.2.2");

        assertThat(cut.failed(guesser)).isFalse();
        assertThat(cut.failed(guesser)).isFalse();
        assertThat(cut.locked(guesser)).as("below the threshold").isFalse();
        assertThat(cut.failed(guesser)).as("the third failure").isTrue();

        assertThat(cut.locked(guesser)).isTrue();
        assertThat(cut.locked(other)).as("another address").isFalse();
    }

    @Test
    void aLockoutIsReportedOnceHowEverManyAttemptsFollowAndEndsAfterItsTime() throws Exception {
        AddressLockout cut = new AddressLockout(2, 60_000, 100, now::get, reported::add);
        InetAddress guesser = InetAddress.getByName("2001:db8::1");
        cut.failed(guesser);
        cut.failed(guesser);
        for (int i = 0; i < 50; i++) {
            assertThat(cut.locked(guesser)).isTrue();
            cut.failed(guesser);
            now.addAndGet(1_000); // attempts during the lockout do not extend it
        }
        assertThat(reported).containsExactly(guesser);

        now.addAndGet(10_000); // 60 s after it began
        assertThat(cut.locked(guesser)).as("after the lockout").isFalse();
        assertThat(cut.failed(guesser)).as("counting starts again").isFalse();
        assertThat(cut.failed(guesser)).isTrue();
        assertThat(reported).as("the second lockout, reported once").hasSize(2);
    }

    @Test
    void failuresSpreadWiderThanTheWindowDoNotAddUp() throws Exception {
        AddressLockout cut = new AddressLockout(2, 60_000, 100, now::get, reported::add);
        InetAddress slow = InetAddress.getByName("192.0.2.3");

        cut.failed(slow);
        now.addAndGet(60_000);
        assertThat(cut.failed(slow)).as("the first failure's window passed").isFalse();
        assertThat(cut.failed(slow)).as("two within one window").isTrue();
    }

    @Test
    void noMoreThanItsCapacityOfAddressesIsRemembered() throws Exception {
        AddressLockout cut = new AddressLockout(5, 60_000, 16, now::get, reported::add);
        for (int i = 0; i < 1_000; i++) {
            cut.failed(InetAddress.getByAddress(new byte[]{10, 0, (byte) (i >> 8), (byte) i}));
        }
        assertThat(cut.tracked()).isEqualTo(16);
    }
}
