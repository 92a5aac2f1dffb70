package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.queue.entity.RecipientStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The journal's group commit: submissions that wait are written together, a lost database keeps them
 * and writes them once it answers (in order, flagged for verification), and a change the database
 * refuses is written on its own without its recipients, the others as they were. The writer here
 * stands for the database's answers (lost connection, refused data), which the store's own tests give
 * on the real databases.
 */
class GroupCommitTest {

    static final Instant T = Instant.parse("2030-03-14T09:26:53Z");

    final List<List<Change>> written = new CopyOnWriteArrayList<>();
    final List<Boolean> verified = new CopyOnWriteArrayList<>();
    Thread thread;
    GroupCommit cut;

    void start(JournalWrites.Writer writer) {
        start(writer, Duration.ZERO);
    }

    void start(JournalWrites.Writer writer, Duration delay) {
        cut = new GroupCommit(writer, delay);
        thread = new Thread(cut, "journal");
        thread.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        cut.stop();
        thread.join(5000);
    }

    /** Some other change of a claimer, written with the outcomes: a hand-back. */
    static Change mark(long id) {
        return new Change.HandedBack(id, 1, T, null);
    }

    static Change attempt(long id, List<RecipientResult> recipients) {
        return new Change.Attempted(new AttemptResult(id, new Lease(1, "c#1"), "s", "a", 5, null, T, T, Verdict.SENT, 250, "250 ok",
                null, null, recipients));
    }

    @Test
    void submissionsThatWaitAreWrittenInOneTransaction() throws Exception {
        CountDownLatch firstWriteStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start((changes, verify) -> {
            firstWriteStarted.countDown();
            await(release);
            written.add(changes);
        });
        GroupCommit.Ticket first = cut.submit(1, List.of(mark(1)));
        firstWriteStarted.await(5, TimeUnit.SECONDS);
        List<GroupCommit.Ticket> waiting = new ArrayList<>();
        for (int i = 2; i <= 5; i++) {
            waiting.add(cut.submit(1, List.of(attempt(i - 1, List.of()), mark(i))));
        }
        release.countDown();

        assertThat(first.await(5000)).isTrue();
        for (GroupCommit.Ticket t : waiting) {
            assertThat(t.await(5000)).isTrue();
        }
        assertThat(written).hasSize(2);
        assertThat(written.get(1)).as("the four that waited, in order").hasSize(8);
    }

    /**
     * With a commit delay, a group waits for the other claimer that was sending: two claimers that each submit in
     * turn share their commits instead of taking one each.
     */
    @Test
    void withACommitDelayAGroupWaitsForTheOtherActiveClaimer() throws Exception {
        start((changes, verify) -> written.add(changes), Duration.ofSeconds(10));
        assertThat(cut.submit(1, List.of(mark(1))).await(5000)).as("the only claimer: written at once").isTrue();

        GroupCommit.Ticket two = cut.submit(2, List.of(mark(2)));
        assertThat(two.await(300)).as("held for claimer 1, active a moment ago").isFalse();
        GroupCommit.Ticket one = cut.submit(1, List.of(mark(3)));

        assertThat(two.await(5000)).isTrue();
        assertThat(one.await(5000)).isTrue();
        assertThat(written).containsExactly(List.of(mark(1)), List.of(mark(2), mark(3)));
    }

    /** The delay bounds the wait: a claimer that stops submitting holds its peers' commits no longer than that. */
    @Test
    void aGroupIsHeldNoLongerThanTheDelayAfterItsFirstSubmission() throws Exception {
        Duration delay = Duration.ofMillis(400);
        start((changes, verify) -> written.add(changes), delay);
        cut.submit(1, List.of(mark(1))).await(5000);
        cut.submit(2, List.of(mark(2))).await(5000);
        written.clear();

        long start = System.nanoTime();
        GroupCommit.Ticket alone = cut.submit(1, List.of(mark(3)));
        assertThat(alone.await(10_000)).isTrue();
        Duration waited = Duration.ofNanos(System.nanoTime() - start);

        assertThat(waited).as("held for claimer 2, which never came").isGreaterThanOrEqualTo(delay.minusMillis(50));
        assertThat(written).containsExactly(List.of(mark(3)));
    }

    /** A commit that does not return (a synchronous standby away) shows as a write under way since its start. */
    @Test
    void aWriteUnderWayShowsSinceWhenUntilItsCommitReturns() throws Exception {
        CountDownLatch writeStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start((changes, verify) -> {
            writeStarted.countDown();
            await(release);
            written.add(changes);
        });
        assertThat(cut.writingSince()).as("idle").isNull();
        Instant before = Instant.now();
        GroupCommit.Ticket ticket = cut.submit(1, List.of(mark(1)));
        assertThat(writeStarted.await(5, TimeUnit.SECONDS)).isTrue();

        assertThat(cut.writingSince()).isNotNull().isBetween(before, Instant.now());
        release.countDown();
        assertThat(ticket.await(5000)).isTrue();
        assertThat(cut.writingSince()).as("written").isNull();
    }

    @Test
    void whileTheDatabaseIsAwayChangesAreKeptAndWrittenWhenItAnswersVerifyingTheUnknownCommit() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        start((changes, verify) -> {
            if (calls.incrementAndGet() <= 3) {
                throw new IllegalStateException(new SQLTransientConnectionException("connection refused", "08001"));
            }
            written.add(changes);
            verified.add(verify);
        });
        GroupCommit.Ticket ticket = cut.submit(1, List.of(attempt(1, List.of()), mark(2)));

        assertThat(ticket.await(200)).as("not before the database answers").isFalse();
        assertThat(ticket.await(10_000)).isTrue();
        assertThat(cut.unavailableSince()).isNull();
        assertThat(written).containsExactly(List.of(attempt(1, List.of()), mark(2)));
        assertThat(verified).containsExactly(true);
    }

    @Test
    void aChangeTheDatabaseRefusesIsWrittenAloneWithoutItsRecipientsAndTheOthersAsTheyWere() throws Exception {
        RecipientResult twice = new RecipientResult("a@x.example", RecipientStatus.SENT, null, null, null);
        start((changes, verify) -> {
            boolean poisoned = changes.stream().anyMatch(c -> c instanceof Change.Attempted a && !a.result().recipients().isEmpty());
            if (poisoned) {
                throw new IllegalStateException(new SQLIntegrityConstraintViolationException("duplicate key", "23505"));
            }
            written.add(changes);
        });
        GroupCommit.Ticket ticket = cut.submit(1, List.of(attempt(1, List.of(twice, twice)), mark(2), attempt(3, List.of())));

        assertThat(ticket.await(10_000)).isTrue();
        List<Change> all = written.stream().flatMap(List::stream).toList();
        assertThat(all).hasSize(3);
        assertThat(all.get(0)).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().recipients()).isEmpty();
            assertThat(a.result().error()).contains("could not be recorded in full").contains("duplicate key");
        });
        assertThat(all.subList(1, 3)).containsExactly(mark(2), attempt(3, List.of()));
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
