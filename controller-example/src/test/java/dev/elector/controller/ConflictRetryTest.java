package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * Writes that lose a 409 race retry after a random pause in [1 ms, ceiling], the ceiling doubling
 * from 10 ms with each retry up to 200 ms.
 */
class ConflictRetryTest {

  /** Draws the highest or the lowest value of every range it is asked for. */
  private static RandomGenerator always(boolean highest) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new AssertionError("only bounded draws are expected");
      }

      @Override
      public long nextLong(long origin, long bound) {
        return highest ? bound - 1 : origin;
      }
    };
  }

  @Test
  void theCeilingDoublesFromTenMillisecondsPerRetryUpToTwoHundred() {
    ConflictRetry retry = new ConflictRetry(10, always(true), d -> {});
    List<Long> ceilings = new ArrayList<>();
    for (int attempt = 1; attempt <= 8; attempt++) {
      ceilings.add(retry.delay(attempt).toMillis());
    }
    assertEquals(List.of(10L, 20L, 40L, 80L, 160L, 200L, 200L, 200L), ceilings);
    assertEquals(Duration.ofMillis(200), retry.delay(1_000), "no overflow after many retries");
  }

  @Test
  void thePauseIsNeverShorterThanOneMillisecond() {
    ConflictRetry retry = new ConflictRetry(10, always(false), d -> {});
    for (int attempt = 1; attempt <= 8; attempt++) {
      assertEquals(Duration.ofMillis(1), retry.delay(attempt));
    }
  }

  @Test
  void pausesSpreadOverTheWholeRangeSoRacingWritersDrawApart() {
    ConflictRetry retry = new ConflictRetry(10, new SplittableRandom(7), d -> {});
    long lowest = Long.MAX_VALUE;
    long highest = 0;
    for (int i = 0; i < 2_000; i++) {
      long millis = retry.delay(3).toMillis();
      lowest = Math.min(lowest, millis);
      highest = Math.max(highest, millis);
    }
    assertEquals(1, lowest);
    assertEquals(40, highest);
  }

  @Test
  void pauseBeforeWaitsTheDelayAndKeepsAnInterrupt() {
    List<Duration> paused = new ArrayList<>();
    new ConflictRetry(3, always(true), paused::add).pauseBefore(2);
    assertEquals(List.of(Duration.ofMillis(20)), paused);

    ConflictRetry interrupted =
        new ConflictRetry(
            3,
            always(true),
            d -> {
              throw new InterruptedException();
            });
    try {
      interrupted.pauseBefore(1);
      assertTrue(Thread.interrupted(), "the interrupt flag is set again (and cleared here)");
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void attemptsAreAtLeastOneAndTheStandardIsTen() {
    assertEquals(10, ConflictRetry.standard().attempts());
    assertEquals(
        "attempts 0 must be at least 1",
        assertThrows(
                IllegalArgumentException.class, () -> new ConflictRetry(0, always(true), d -> {}))
            .getMessage());
  }
}
