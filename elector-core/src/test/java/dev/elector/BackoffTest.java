package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The pauses between attempts: retryPeriod × U[1, jitter], doubling per failure up to the cap. */
class BackoffTest {
  private static final long S = 1_000_000_000L;
  private final Backoff backoff = new Backoff(2 * S, 30 * S, 1.2);

  @Test
  void aPauseWithoutFailuresIsOneRetryPeriodStretchedByTheJitterDraw() {
    assertEquals(2 * S, backoff.retry(0.0));
    assertEquals(2_200_000_000L, backoff.retry(0.5));
    assertEquals(2_399_999_999L, backoff.retry(0.999_999_999_75), "just under retry × jitter");
  }

  @Test
  void eachConsecutiveFailureDoublesThePauseFromOneRetryPeriod() {
    assertEquals(2 * S, backoff.afterFailures(1, 0.0));
    assertEquals(4 * S, backoff.afterFailures(2, 0.0));
    assertEquals(8 * S, backoff.afterFailures(3, 0.0));
    assertEquals(16 * S, backoff.afterFailures(4, 0.0));
    assertEquals(2 * S, backoff.afterFailures(0, 0.0), "no failure counts as the first");
  }

  @Test
  void thePauseStopsGrowingAtMaxBackoffBeforeTheJitter() {
    assertEquals(30 * S, backoff.afterFailures(5, 0.0), "32 s is capped to 30 s");
    assertEquals(36 * S, backoff.afterFailures(5, 1.0), "the jitter applies on top of the cap");
    assertEquals(30 * S, backoff.afterFailures(1_000, 0.0), "no overflow after many failures");
  }

  @Test
  void aDoublingThatWouldOverflowIsCapped() {
    Backoff huge = new Backoff(Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 1, 1.0);
    assertEquals(Long.MAX_VALUE / 2 + 1, huge.afterFailures(3, 0.0));
  }

  @Test
  void withoutJitterTheDrawDoesNotMatter() {
    Backoff exact = new Backoff(2 * S, 30 * S, 1.0);
    assertEquals(2 * S, exact.retry(0.9));
    assertEquals(8 * S, exact.afterFailures(3, 0.9));
  }

  @Test
  void theBackOffEndsWhenTheLockCouldBeTakenAndNeverWaitsLessThanARetryPeriod() {
    Backoff capped = new Backoff(2 * S, 16 * S, 1.2);
    assertEquals(16 * S, capped.afterFailures(5, 0.0, Long.MAX_VALUE), "nothing to gain: in full");
    assertEquals(10 * S, capped.afterFailures(5, 0.0, 10 * S), "until the lock could be taken");
    assertEquals(2 * S, capped.afterFailures(5, 0.0, 0), "then one retry period");
    assertEquals(2_400_000_000L - 1, capped.afterFailures(5, 0.999_999_999_75, 0), "with jitter");
    assertEquals(4 * S, capped.afterFailures(2, 0.0, 10 * S), "a shorter back-off is kept");
  }
}
