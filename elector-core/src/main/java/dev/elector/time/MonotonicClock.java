package dev.elector.time;

/**
 * A source of monotonic time in nanoseconds, measured from an arbitrary fixed origin.
 *
 * <p>The elector judges every duration (lease expiry, renew deadline, back-off) with this clock and
 * never with wall time, so a wall-clock jump cannot shorten or stretch a lease. The default is
 * {@link #system()}; tests inject a virtual clock from {@code elector-testkit}.
 */
@FunctionalInterface
public interface MonotonicClock {

  /**
   * Returns the current reading in nanoseconds; only differences between readings are meaningful.
   */
  long nanos();

  /** Returns the clock backed by {@link System#nanoTime()}. */
  static MonotonicClock system() {
    return SystemTime.CLOCK;
  }
}
