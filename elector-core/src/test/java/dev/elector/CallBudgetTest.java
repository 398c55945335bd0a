package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

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
}
