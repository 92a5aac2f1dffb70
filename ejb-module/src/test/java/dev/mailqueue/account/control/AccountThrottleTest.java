package dev.mailqueue.account.control;

import dev.mailqueue.testsupport.QueueDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared rate state on the real schema and database ({@link QueueDatabase}): concurrent claimers
 * (threads, each in its own transaction, as claimers on any server are) never get more slots than the
 * limit; a slot frees 60 s after its send finished, at once when the server was never reached; a
 * slow-down halves what is granted; a day limit waits for UTC midnight.
 */
@Tag("database")
class AccountThrottleTest {

    static final Instant NOW = Instant.parse("2030-05-06T12:00:00Z");

    static QueueDatabase db;

    @BeforeAll
    static void database() {
        db = QueueDatabase.create();
    }

    @AfterAll
    static void drop() {
        db.close();
    }

    static Account account(int perMinute, int perDay) {
        return new Account("acct-" + UUID.randomUUID().toString().substring(0, 8), List.of(), Set.of(), perMinute, perDay);
    }

    /** Runs one call of the throttle in a transaction of its own, as REQUIRES_NEW does in the server. */
    static <T> T throttle(Function<AccountThrottle, T> call) {
        return db.inTransaction(() -> call.apply(AccountThrottle.on(db.dataSource())));
    }

    @Test
    void concurrentClaimersGetNoMoreSlotsThanTheLimit() throws Exception {
        Account account = account(3, 0);
        assertThat(throttle(t -> t.acquire(account, NOW)).granted()).as("first use creates the rows").isTrue();

        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<SendPermit>> permits = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                Callable<SendPermit> claimer = () -> throttle(t -> t.acquire(account, NOW.plusNanos(1000)));
                permits.add(pool.submit(claimer));
            }
            int granted = 0;
            for (Future<SendPermit> permit : permits) {
                if (permit.get().granted()) {
                    granted++;
                } else {
                    assertThat(permit.get().retryTimes()).isNotEmpty();
                }
            }
            assertThat(granted).isEqualTo(2);
        } finally {
            pool.shutdown();
        }
    }

    /** What the claim may take of an account's mail: the free slots, under a slow-down and the day's rest. */
    @Test
    void availableCountsWhatTheAccountMaySendNowWithoutTakingIt() {
        Account fresh = account(5, 0);
        assertThat(available(fresh, NOW)).as("no rows yet: every slot free").isEqualTo(5);
        assertThat(available(account(0, 0), NOW)).isEqualTo(Integer.MAX_VALUE);

        Account minute = account(5, 0);
        grantedAt(minute, NOW, 2);
        assertThat(available(minute, NOW.plusSeconds(1))).as("2 slots busy until NOW+60 s").isEqualTo(3);
        assertThat(available(minute, NOW.plusSeconds(60))).isEqualTo(5);

        Account account = account(5, 4);
        grantedAt(account, NOW, 2);
        assertThat(available(account, NOW.plusSeconds(1))).as("3 slots free, 2 of the day left").isEqualTo(2);
        assertThat(available(account, NOW.plusSeconds(1))).as("reading takes nothing").isEqualTo(2);
        grantedAt(account, NOW.plusSeconds(2), 2);
        assertThat(available(account, NOW.plusSeconds(3))).as("the day's 4 are spent").isZero();

        Account slowed = account(4, 0);
        throttle(t -> t.slowDown(slowed, NOW));
        assertThat(available(slowed, NOW.plusSeconds(1))).as("halved").isEqualTo(2);
        grantedAt(slowed, NOW.plusSeconds(1), 1);
        assertThat(available(slowed, NOW.plusSeconds(2))).isEqualTo(1);
    }

    @Test
    void aSlotFreesSixtySecondsAfterItsSendFinished() {
        Account account = account(1, 0);
        SendPermit permit = throttle(t -> t.acquire(account, NOW));
        assertThat(throttle(t -> t.acquire(account, NOW.plusSeconds(5))).granted()).as("in flight").isFalse();

        throttle(t -> { t.complete(permit, NOW.plusSeconds(2)); return null; });

        SendPermit early = throttle(t -> t.acquire(account, NOW.plusSeconds(61)));
        assertThat(early.granted()).isFalse();
        assertThat(early.retryAt(0)).isEqualTo(NOW.plusSeconds(62));
        assertThat(throttle(t -> t.acquire(account, NOW.plusSeconds(62))).granted()).isTrue();
    }

    @Test
    void aShorterWindowFreesTheSlotThatLongAfterItsSendAndSpacesTheWaitingMailsByIt() {
        Account account = new Account("acct-" + UUID.randomUUID().toString().substring(0, 8), List.of(), Set.of(), 1, 0,
                null, false, Duration.ofSeconds(20));
        SendPermit permit = throttle(t -> t.acquire(account, NOW));
        throttle(t -> { t.complete(permit, NOW.plusSeconds(2)); return null; });

        SendPermit early = throttle(t -> t.acquire(account, NOW.plusSeconds(21)));
        assertThat(early.granted()).isFalse();
        assertThat(early.retryAt(0)).isEqualTo(NOW.plusSeconds(22));
        assertThat(early.retryAt(2)).as("the third waiting mail: two windows later").isEqualTo(NOW.plusSeconds(62));
        assertThat(throttle(t -> t.acquire(account, NOW.plusSeconds(22))).granted()).isTrue();
    }

    @Test
    void aSendThatNeverReachedTheServerGivesItsSlotBackAtOnce() {
        Account account = account(1, 0);
        SendPermit permit = throttle(t -> t.acquire(account, NOW));

        throttle(t -> { t.release(permit, NOW.plusSeconds(1)); return null; });

        assertThat(throttle(t -> t.acquire(account, NOW.plusSeconds(1))).granted()).isTrue();
    }

    @Test
    void aSlowDownHalvesWhatIsGrantedAndTheLimitGrowsBackMinuteByMinute() {
        Account account = account(4, 0);
        int slowed = throttle(t -> t.slowDown(account, NOW));
        assertThat(slowed).isEqualTo(2);

        assertThat(grantedAt(account, NOW.plusSeconds(1), 4)).isEqualTo(2);
        // Those two free at NOW+61 s; by then the limit has grown back by one (a tenth of 4, at least 1).
        assertThat(grantedAt(account, NOW.plusSeconds(62), 4)).isEqualTo(3);
    }

    @Test
    void aDayLimitWaitsForUtcMidnight() {
        Account account = account(0, 2);
        assertThat(grantedAt(account, NOW, 3)).isEqualTo(2);
        SendPermit refused = throttle(t -> t.acquire(account, NOW.plus(Duration.ofHours(1))));
        assertThat(refused.granted()).isFalse();
        assertThat(refused.retryAt(0)).isEqualTo(Instant.parse("2030-05-07T00:00:00Z"));
        assertThat(refused.retryAt(500)).as("all at midnight").isEqualTo(Instant.parse("2030-05-07T00:00:00Z"));

        assertThat(grantedAt(account, Instant.parse("2030-05-07T00:00:00Z"), 3)).isEqualTo(2);
    }

    private static int available(Account account, Instant at) {
        Integer available = throttle(t -> t.available(account, at));
        return available;
    }

    private static int grantedAt(Account account, Instant at, int tries) {
        int granted = 0;
        for (int i = 0; i < tries; i++) {
            SendPermit permit = throttle(t -> t.acquire(account, at));
            if (permit.granted()) {
                granted++;
                throttle(t -> { t.complete(permit, at); return null; });
            }
        }
        return granted;
    }
}
