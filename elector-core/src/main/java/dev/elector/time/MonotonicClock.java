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

  /**
   * Returns the clock backed by {@link System#nanoTime()}: the only place in elector-core that
   * reads it. The election reads time only through the clock it is given; code that needs real time
   * outside it (the default threads' shutdown, the Kubernetes locks' watch and event threads) reads
   * it through this.
   */
  static MonotonicClock system() {
    return System::nanoTime;
  }
}
