package dev.mailqueue.budget.control;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Large bodies wait for room, small ones pass beside them, and every share comes back. */
class BodyBudgetTest {

    private static final long MIB = 1024 * 1024;

    @Test
    void twoLargestRequestsFitAThirdWaitsUntilOneEnds() throws InterruptedException {
        BodyBudget budget = new BodyBudget(32 * MIB);

        Optional<BodyBudget.Share> first = budget.take(16 * MIB, 0);
        Optional<BodyBudget.Share> second = budget.take(16 * MIB, 0);
        assertThat(first).isPresent();
        assertThat(second).isPresent();
        assertThat(budget.take(16 * MIB, 50)).isEmpty();

        first.get().close();
        assertThat(budget.take(16 * MIB, 0)).isPresent();
    }

    @Test
    void aSmallBodyPassesWhileALargeOneWaits() throws InterruptedException {
        BodyBudget budget = new BodyBudget(32 * MIB);
        budget.take(31 * MIB, 0).orElseThrow();

        assertThat(budget.take(16 * MIB, 0)).isEmpty();
        assertThat(budget.take(1_000, 0)).isPresent();
    }

    @Test
    void aBodyLargerThanTheBudgetTakesAllOfIt() throws InterruptedException {
        BodyBudget budget = new BodyBudget(MIB);

        BodyBudget.Share all = budget.take(16 * MIB, 0).orElseThrow();
        assertThat(budget.freeKib()).isZero();
        all.close();
        all.close(); // a second close gives nothing back twice
        assertThat(budget.freeKib()).isEqualTo(1024);
    }

    @Test
    void aBudgetUnderOneKibIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new BodyBudget(1023)).withMessageContaining("1023");
    }
}
