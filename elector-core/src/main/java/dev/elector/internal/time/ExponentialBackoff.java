package dev.elector.internal.time;

import java.time.Duration;
import java.util.Objects;

/**
 * An exponential back-off: {@code first} after the first failure, doubling with each further one,
 * up to {@code max}. It is the one back-off formula Elector uses (the elector's retries, the
 * Kubernetes locks' watch reconnects). Internal: not part of the API.
 *
 * <p>It gives the base wait only; the caller spreads it with its own jitter, because the right
 * spread depends on the use (the elector stretches the wait by up to its jitter factor; writers
 * racing for one object draw anywhere below the base). Pure and immutable, so thread-safe; it never
 * overflows.
 */
public final class ExponentialBackoff {
  private final long firstNanos;
  private final long maxNanos;

  private ExponentialBackoff(long firstNanos, long maxNanos) {
    this.firstNanos = firstNanos;
    this.maxNanos = maxNanos;
  }

  /**
   * Creates a back-off from {@code first} doubling to {@code max}.
   *
   * @param first the wait after the first failure; positive
   * @param max the cap; at least {@code first}
   * @throws IllegalArgumentException if {@code first} is not positive, {@code max} is shorter than
   *     {@code first}, or either does not fit in a long of nanoseconds (about 292 years)
   * @throws NullPointerException if either is null
   */
  public static ExponentialBackoff of(Duration first, Duration max) {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(max, "max");
    if (first.isNegative() || first.isZero()) {
      throw new IllegalArgumentException(
          "first " + first + " must be positive; give the wait after the first failure");
    }
    if (max.compareTo(first) < 0) {
      throw new IllegalArgumentException(
          "max " + max + " must be at least first " + first + "; raise max or lower first");
    }
    try {
      return new ExponentialBackoff(first.toNanos(), max.toNanos());
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "max " + max + " must fit in a long of nanoseconds (about 292 years); lower it", e);
    }
  }

  /** The wait after the first failure. */
  public Duration first() {
    return Duration.ofNanos(firstNanos);
  }

  /** The cap on the wait. */
  public Duration max() {
    return Duration.ofNanos(maxNanos);
  }

  /**
   * The wait in nanoseconds after the n-th consecutive failure: min(max, first × 2^(n-1)); n of
   * zero or less counts as one.
   */
  public long nanosAfterFailures(int failures) {
    int doublings = Math.max(failures - 1, 0);
    if (doublings >= Long.numberOfLeadingZeros(firstNanos)) {
      return maxNanos; // first << doublings would not fit in a long: far beyond any cap
    }
    return Math.min(firstNanos << doublings, maxNanos);
  }

  /** {@link #nanosAfterFailures(int)} as a duration. */
  public Duration afterFailures(int failures) {
    return Duration.ofNanos(nanosAfterFailures(failures));
  }

  @Override
  public String toString() {
    return "ExponentialBackoff[first=" + first() + ", max=" + max() + "]";
  }
}
