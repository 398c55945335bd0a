package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The hard bound on lock calls: a burst, then one call per interval, whatever happens. */
class CallBudgetTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void allowsTheBurstThenOneCallPerInterval() {
    CallBudget budget = new CallBudget(4, SECOND);
    for (int i = 0; i < 4; i++) {
      assertEquals(0, budget.tryAcquire(0), "burst call " + i);
    }
    assertEquals(SECOND, budget.tryAcquire(0), "fifth call waits one interval");
    assertEquals(0, budget.tryAcquire(SECOND));
    assertEquals(SECOND, budget.tryAcquire(SECOND));
  }

  @Test
  void neverExceedsBurstPlusRateInAnyWindow() {
    CallBudget budget = new CallBudget(4, SECOND);
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
    CallBudget budget = new CallBudget(2, SECOND);
    assertEquals(0, budget.tryAcquire(0));
    assertEquals(0, budget.tryAcquire(0));
    assertEquals(SECOND, budget.tryAcquire(0));
    assertEquals(SECOND / 4, budget.tryAcquire(SECOND * 3 / 4), "the wait shrinks as time passes");
    assertEquals(0, budget.tryAcquire(SECOND), "refusals did not push the next slot back");
  }

  @Test
  void aQuietSpellRefillsTheBurstButNoMore() {
    CallBudget budget = new CallBudget(3, SECOND);
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
    CallBudget budget = new CallBudget(1, SECOND);
    assertEquals(0, budget.tryAcquire(Long.MIN_VALUE + 5));
    assertEquals(SECOND, budget.tryAcquire(Long.MIN_VALUE + 5));
  }
}
