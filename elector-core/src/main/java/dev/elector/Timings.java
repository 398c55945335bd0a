package dev.elector;

import java.time.Duration;

/** The configured durations in monotonic nanoseconds, converted once per election. */
record Timings(
    long lease,
    long renewDeadline,
    long retry,
    long callTimeout,
    long maxBackoff,
    long closeTimeout,
    long healthTolerance) {

  static Timings of(ElectorConfig config) {
    return new Timings(
        nanos(config.leaseDuration()),
        nanos(config.renewDeadline()),
        nanos(config.retryPeriod()),
        nanos(config.callTimeout()),
        nanos(config.maxBackoff()),
        nanos(config.closeTimeout()),
        nanos(config.healthTolerance()));
  }

  /** A duration in nanoseconds, saturating instead of overflowing. */
  static long nanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException overflow) {
      return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
