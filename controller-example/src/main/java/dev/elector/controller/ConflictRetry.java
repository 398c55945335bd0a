package dev.elector.controller;

import dev.elector.time.ExponentialBackoff;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How writes that lose an optimistic-concurrency race (409) are retried: at most {@link
 * #attempts()} tries, with a pause before each retry drawn uniformly from 1 ms to a ceiling that
 * doubles from 10 ms with each retry up to 200 ms ({@link #CEILING}, Elector's exponential
 * back-off), so that racing writers spread out.
 */
final class ConflictRetry {
  /** The ceiling of the pause before each retry: 10 ms doubling to 200 ms. */
  static final ExponentialBackoff CEILING =
      ExponentialBackoff.of(Duration.ofMillis(10), Duration.ofMillis(200));

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
    long ceilingMillis = CEILING.afterFailures(attempt).toMillis();
    return Duration.ofMillis(random.nextLong(1, ceilingMillis + 1));
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
