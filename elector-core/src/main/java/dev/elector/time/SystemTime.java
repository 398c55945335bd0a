package dev.elector.time;

/** The real monotonic clock. The only place in main code that reads {@link System#nanoTime()}. */
enum SystemTime implements MonotonicClock {
  CLOCK;

  @Override
  public long nanos() {
    return System.nanoTime();
  }
}
