package dev.elector.internal.candidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The hard bound on lock calls: a burst, then one call per interval, whatever happens. */
class BudgetTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void allowsTheBurstThenOneCallPerInterval() {
    Spender budget = new Spender(Budget.of(4, SECOND));
    for (int i = 0; i < 4; i++) {
      assertEquals(0, budget.tryAcquire(0), "burst call " + i);
    }
    assertEquals(SECOND, budget.tryAcquire(0), "fifth call waits one interval");
    assertEquals(0, budget.tryAcquire(SECOND));
    assertEquals(SECOND, budget.tryAcquire(SECOND));
  }

  @Test
  void neverExceedsBurstPlusRateInAnyWindow() {
    Spender budget = new Spender(Budget.of(4, SECOND));
    int allowed = 0;
    for (long t = 0; t < 100 * SECOND; t += SECOND / 10) {
      if (budget.tryAcquire(t) == 0) {
        allowed++;
      }
    }
    assertEquals(4 + 99, allowed, "4 at once, then one per second over 100 s");
  }

  @Test
  void aRefusedCallSpendsNothingAndNamesTheExactWait() {
    Spender budget = new Spender(Budget.of(2, SECOND));
    assertEquals(0, budget.tryAcquire(0));
    assertEquals(0, budget.tryAcquire(0));
    assertEquals(SECOND, budget.tryAcquire(0));
    assertEquals(SECOND / 4, budget.tryAcquire(SECOND * 3 / 4), "the wait shrinks as time passes");
    assertEquals(0, budget.tryAcquire(SECOND), "refusals did not push the next slot back");
  }

  @Test
  void aQuietSpellRefillsTheBurstButNoMore() {
    Spender budget = new Spender(Budget.of(3, SECOND));
    for (int i = 0; i < 3; i++) {
      budget.tryAcquire(0);
    }
    long later = 3600 * SECOND;
    for (int i = 0; i < 3; i++) {
      assertEquals(0, budget.tryAcquire(later), "refilled burst call " + i);
    }
    assertTrue(budget.tryAcquire(later) > 0, "an hour of quiet does not save more than the burst");
  }

  @Test
  void theFirstCallIsAllowedWhateverTheClocksOrigin() {
    Spender budget = new Spender(Budget.of(1, SECOND));
    assertEquals(0, budget.tryAcquire(Long.MIN_VALUE + 5));
    assertEquals(SECOND, budget.tryAcquire(Long.MIN_VALUE + 5));
  }

  /**
   * Spends from a budget value as a candidate does: asks for the wait, spends when there is none.
   */
  private static final class Spender {
    private Budget budget;

    Spender(Budget budget) {
      this.budget = budget;
    }

    long tryAcquire(long now) {
      long wait = budget.waitAt(now);
      if (wait == 0) {
        budget = budget.spend(now);
      }
      return wait;
    }
  }
}
