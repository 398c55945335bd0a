package dev.elector.controller;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How writes that lose an optimistic-concurrency race (409) are retried: at most {@link
 * #attempts()} tries, with a pause before each retry drawn uniformly from 1 ms to a ceiling that
 * doubles from 10 ms with each retry up to 200 ms ({@link #ceilingMillis}), so that racing writers
 * spread out.
 */
final class ConflictRetry {
  private static final long FIRST_CEILING_MILLIS = 10;
  private static final long MAX_CEILING_MILLIS = 200;

  /** Pauses the calling thread. */
  interface Pause {
    void pause(Duration duration) throws InterruptedException;
  }

  private final int attempts;
  private final RandomGenerator random;
  private final Pause pause;

  ConflictRetry(int attempts, RandomGenerator random, Pause pause) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts " + attempts + " must be at least 1");
    }
    this.attempts = attempts;
    this.random = random;
    this.pause = pause;
  }

  /** Ten attempts, real pauses. */
  static ConflictRetry standard() {
    return new ConflictRetry(10, RandomGenerator.getDefault(), d -> Thread.sleep(d.toMillis()));
  }

  int attempts() {
    return attempts;
  }

  /** The pause before retry number {@code attempt} (1 = first retry; less counts as 1). */
  Duration delay(int attempt) {
    return Duration.ofMillis(random.nextLong(1, ceilingMillis(attempt) + 1));
  }

  /** The longest pause before retry number {@code attempt}: 10 ms doubling to at most 200 ms. */
  static long ceilingMillis(int attempt) {
    int doublings = Math.min(Math.max(attempt - 1, 0), 5); // 10 << 5 is past the cap already
    return Math.min(FIRST_CEILING_MILLIS << doublings, MAX_CEILING_MILLIS);
  }

  /** Pauses before retry number {@code attempt}; keeps the interrupt flag if interrupted. */
  void pauseBefore(int attempt) {
    try {
      pause.pause(delay(attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
