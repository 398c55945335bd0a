package dev.elector.internal.time;

import java.time.Duration;
import java.util.Objects;

/**
 * A token bucket: it holds {@code burst} tokens and earns one back per {@code interval}, so in any
 * stretch of time T it lets at most {@code burst + T / interval} requests go. It is the one rate
 * limit Elector uses (the elector's bound on lock calls, its failure log, the Kubernetes locks'
 * watch requests and Events). Internal: not part of the API.
 *
 * <p>Time is the caller's: every method takes {@code now}, a reading of the caller's {@link
 * dev.elector.time.MonotonicClock} (the one injected into its configuration), so a test drives the
 * bucket with a virtual clock and a decision and the step that made it share one reading. The
 * bucket is full at the first reading it is given; readings must come from one clock and must not
 * go back. Integer nanoseconds, no floating point: the state is one theoretical arrival time (the
 * generic cell-rate algorithm).
 *
 * <p>Thread-safe: each method is atomic.
 */
public final class TokenBucket {
  private final int burst;
  private final long intervalNanos;
  private final long toleranceNanos;
  private long theoreticalArrival;
  private boolean started;

  private TokenBucket(int burst, long intervalNanos, long toleranceNanos) {
    this.burst = burst;
    this.intervalNanos = intervalNanos;
    this.toleranceNanos = toleranceNanos;
  }

  /**
   * Creates a full bucket.
   *
   * @param burst the requests that may go back to back; at least 1
   * @param interval the time that earns one token back; positive
   * @throws IllegalArgumentException if {@code burst} is below 1, {@code interval} is not positive,
   *     or {@code (burst - 1) × interval} does not fit in a long of nanoseconds (about 292 years)
   * @throws NullPointerException if {@code interval} is null
   */
  public static TokenBucket of(int burst, Duration interval) {
    Objects.requireNonNull(interval, "interval");
    if (burst < 1) {
      throw new IllegalArgumentException(
          "burst " + burst + " must be at least 1; use 1 for one request per interval");
    }
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "interval " + interval + " must be positive; give the time that earns one token back");
    }
    long intervalNanos;
    long toleranceNanos;
    try {
      intervalNanos = interval.toNanos();
      toleranceNanos = Math.multiplyExact(burst - 1L, intervalNanos);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "burst "
              + burst
              + " times interval "
              + interval
              + " must fit in a long of nanoseconds (about 292 years); lower either",
          e);
    }
    return new TokenBucket(burst, intervalNanos, toleranceNanos);
  }

  /** The requests that may go back to back. */
  public int burst() {
    return burst;
  }

  /** The time that earns one token back. */
  public Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  /**
   * Nanoseconds from {@code now} until a token is available; 0 when one is available now. Spends
   * nothing.
   */
  public synchronized long delayNanos(long now) {
    start(now);
    long allowedAt = theoreticalArrival - toleranceNanos;
    return now - allowedAt < 0 ? allowedAt - now : 0;
  }

  /**
   * Spends one token at {@code now}, whether or not one is available: for a request that must go
   * anyway, which then delays the following ones.
   */
  public synchronized void spend(long now) {
    start(now);
    theoreticalArrival = Math.max(theoreticalArrival - now, 0) + now + intervalNanos;
  }

  /**
   * Spends one token at {@code now} if one is available.
   *
   * @return 0 if a token was spent, else the nanoseconds until one is available (nothing spent)
   */
  public synchronized long tryAcquire(long now) {
    long wait = delayNanos(now);
    if (wait == 0) {
      spend(now);
    }
    return wait;
  }

  private void start(long now) {
    if (!started) {
      started = true;
      theoreticalArrival = now;
    }
  }

  @Override
  public String toString() {
    return "TokenBucket[burst=" + burst + ", interval=" + interval() + "]";
  }
}
