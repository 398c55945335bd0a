package dev.elector.internal;

import dev.elector.time.ExponentialBackoff;
import java.time.Duration;

/**
 * Forwards to {@link ExponentialBackoff}, for modules built against this name; new code uses the
 * public type. A limit on the doublings is a lower cap: min(max, first × 2^maxDoublings).
 */
public final class Doubling {
  private final ExponentialBackoff backoff;

  /**
   * @param firstNanos the wait after the first failure; positive
   * @param maxNanos the cap; at least {@code firstNanos}
   * @param maxDoublings after this many doublings the wait stops growing even below the cap
   * @throws IllegalArgumentException if the values are out of range
   */
  public Doubling(long firstNanos, long maxNanos, int maxDoublings) {
    if (maxDoublings < 0) {
      throw new IllegalArgumentException("maxDoublings " + maxDoublings + " must be at least 0");
    }
    long cap =
        firstNanos <= 0 || maxDoublings >= Long.numberOfLeadingZeros(firstNanos)
            ? maxNanos
            : Math.min(maxNanos, firstNanos << maxDoublings);
    this.backoff = ExponentialBackoff.of(Duration.ofNanos(firstNanos), Duration.ofNanos(cap));
  }

  /** See {@link ExponentialBackoff#nanosAfterFailures(int)}. */
  public long afterFailures(int failures) {
    return backoff.nanosAfterFailures(failures);
  }
}
