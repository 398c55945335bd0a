package dev.elector.time;

/**
 * The real monotonic clock: the only place in elector-core that reads {@link System#nanoTime()}.
 * The election reads time only through the {@link MonotonicClock} it is given; the Kubernetes
 * lock modules' watch threads, which run outside the election, read the system clock themselves.
 */
enum SystemTime implements MonotonicClock {
  CLOCK;

  @Override
  public long nanos() {
    return System.nanoTime();
  }
}
