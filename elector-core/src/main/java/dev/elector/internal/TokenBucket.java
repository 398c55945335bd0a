package dev.elector.internal;

import java.time.Duration;

/**
 * Forwards to {@link dev.elector.time.TokenBucket}, for modules built against this name; new code
 * uses the public type.
 */
public final class TokenBucket {
  private final dev.elector.time.TokenBucket bucket;

  /**
   * @param burst the requests that may go back to back; at least 1
   * @param intervalNanos the time that earns one token back; positive
   * @throws IllegalArgumentException if either is out of range
   */
  public TokenBucket(int burst, long intervalNanos) {
    this.bucket = dev.elector.time.TokenBucket.of(burst, Duration.ofNanos(intervalNanos));
  }

  /** See {@link dev.elector.time.TokenBucket#delayNanos(long)}. */
  public long delayNanos(long now) {
    return bucket.delayNanos(now);
  }

  /** See {@link dev.elector.time.TokenBucket#spend(long)}. */
  public void spend(long now) {
    bucket.spend(now);
  }

  /** See {@link dev.elector.time.TokenBucket#tryAcquire(long)}. */
  public long tryAcquire(long now) {
    return bucket.tryAcquire(now);
  }
}
