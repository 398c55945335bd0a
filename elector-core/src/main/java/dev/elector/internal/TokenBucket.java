package dev.elector.internal;

/**
 * A token bucket that holds {@code burst} tokens and earns one back per {@code interval}, kept as a
 * single theoretical arrival time (the generic cell-rate algorithm): in any interval of length T it
 * lets at most {@code burst + T / interval} requests go. Time is the caller's: every method takes
 * {@code now} from the caller's monotonic clock, and the bucket is full at the first time it is
 * given. Integer nanoseconds, no floating point.
 *
 * <p>Not thread-safe: its owner guards it.
 */
public final class TokenBucket {
  private final long intervalNanos;
  private final long toleranceNanos;
  private long theoreticalArrival;
  private boolean started;

  /**
   * @param burst the requests that may go back to back; at least 1
   * @param intervalNanos the time that earns one token back; positive
   * @throws IllegalArgumentException if either is out of range
   */
  public TokenBucket(int burst, long intervalNanos) {
    if (burst < 1 || intervalNanos <= 0) {
      throw new IllegalArgumentException(
          "a token bucket needs burst >= 1 and a positive interval, got burst "
              + burst
              + " and interval "
              + intervalNanos
              + " ns");
    }
    this.intervalNanos = intervalNanos;
    this.toleranceNanos = (burst - 1) * intervalNanos;
  }

  private void start(long now) {
    if (!started) {
      started = true;
      theoreticalArrival = now;
    }
  }

  /** Nanoseconds until a token is available; 0 when one is available now. Spends nothing. */
  public long delayNanos(long now) {
    start(now);
    long allowedAt = theoreticalArrival - toleranceNanos;
    return now - allowedAt < 0 ? allowedAt - now : 0;
  }

  /** Spends one token now, whether or not one is available (the caller has checked). */
  public void spend(long now) {
    start(now);
    theoreticalArrival = Math.max(theoreticalArrival - now, 0) + now + intervalNanos;
  }

  /**
   * Spends one token if one is available now.
   *
   * @return 0 if it was spent, else the nanoseconds until one is available
   */
  public long tryAcquire(long now) {
    long wait = delayNanos(now);
    if (wait == 0) {
      spend(now);
    }
    return wait;
  }
}
