package dev.elector.internal;

/**
 * The base of an exponential back-off: {@code first} after the first failure, doubling with each
 * further one, up to {@code max}; the caller adds its own jitter. Pure; never overflows.
 */
public final class Doubling {
  private final long firstNanos;
  private final long maxNanos;
  private final int maxDoublings;

  /**
   * @param firstNanos the wait after the first failure; positive
   * @param maxNanos the cap; at least {@code firstNanos}
   * @param maxDoublings after this many doublings the wait stops growing even below the cap
   * @throws IllegalArgumentException if the values are out of range
   */
  public Doubling(long firstNanos, long maxNanos, int maxDoublings) {
    if (firstNanos <= 0 || maxNanos < firstNanos || maxDoublings < 0) {
      throw new IllegalArgumentException(
          "a back-off needs 0 < first <= max and maxDoublings >= 0, got first "
              + firstNanos
              + " ns, max "
              + maxNanos
              + " ns, maxDoublings "
              + maxDoublings);
    }
    this.firstNanos = firstNanos;
    this.maxNanos = maxNanos;
    this.maxDoublings = maxDoublings;
  }

  /**
   * min(max, first × 2^(n-1)) after the n-th consecutive failure, with at most {@code maxDoublings}
   * doublings; n of zero or less counts as one.
   */
  public long afterFailures(int failures) {
    int doublings = Math.min(Math.max(failures - 1, 0), maxDoublings);
    if (doublings >= Long.numberOfLeadingZeros(firstNanos)) {
      return maxNanos; // first << doublings would not fit in a long: far beyond any cap
    }
    return Math.min(firstNanos << doublings, maxNanos);
  }
}
