package dev.elector.time;

/**
 * The real monotonic clock: the only place in elector-core that reads {@link System#nanoTime()}.
 * The election reads time only through the {@link MonotonicClock} it is given; code that needs real
 * time outside it (the default threads' shutdown, the Kubernetes lock modules' watch and event
 * threads) reads it through {@link MonotonicClock#system()}.
 */
enum SystemTime implements MonotonicClock {
  CLOCK;

  @Override
  public long nanos() {
    return System.nanoTime();
  }
}
