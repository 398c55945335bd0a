package dev.elector.controller;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How writes that lose an optimistic-concurrency race (409) are retried: at most {@link
 * #attempts()} tries, with a random pause before each retry that grows with the attempt (up to 5 ms
 * x 2^attempt, capped at 200 ms), so that racing writers spread out.
 */
final class ConflictRetry {
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

  /** The pause before retry number {@code attempt} (1 = first retry). */
  Duration delay(int attempt) {
    long ceiling = Math.min(200, 5L << Math.min(attempt, 10));
    return Duration.ofMillis(random.nextLong(1, ceiling + 1));
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
