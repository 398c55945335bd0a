package dev.elector;

import dev.elector.internal.time.ExponentialBackoff;
import java.time.Duration;

/**
 * How long a candidate waits before its next attempt, as pure functions of the retry period, the
 * back-off cap, the jitter factor and a uniform draw in [0, 1) that the caller supplies.
 */
final class Backoff {
  private final long retryNanos;
  private final ExponentialBackoff doubling;
  private final double jitter;

  Backoff(long retryNanos, long maxNanos, double jitter) {
    this.retryNanos = retryNanos;
    this.doubling = ExponentialBackoff.of(Duration.ofNanos(retryNanos), Duration.ofNanos(maxNanos));
    this.jitter = jitter;
  }

  /** retryPeriod × U[1, jitter]: the pause between looks while nothing fails. */
  long retry(double draw) {
    return (long) (retryNanos * factor(draw));
  }

  /**
   * min(maxBackoff, retryPeriod × 2^(n-1)) × U[1, jitter] after the n-th consecutive failure; n of
   * zero or less counts as one.
   */
  long afterFailures(int failures, double draw) {
    return (long) (doubling.nanosAfterFailures(failures) * factor(draw));
  }

  /**
   * {@link #afterFailures(int, double)}, but no later than {@code takeableInNanos} or one {@link
   * #retry(double)}, whichever is later: the back-off spares the server only while the candidate
   * could not take the lock anyway.
   */
  long afterFailures(int failures, double draw, long takeableInNanos) {
    return Math.min(afterFailures(failures, draw), Math.max(takeableInNanos, retry(draw)));
  }

  private double factor(double draw) {
    return 1.0 + draw * (jitter - 1.0);
  }
}
