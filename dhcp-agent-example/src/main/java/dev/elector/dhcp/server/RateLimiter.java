package dev.elector.dhcp.server;

import dev.elector.time.MonotonicClock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one event through per interval and counts the ones it held back in between, on the server's
 * clock. Thread-safe.
 */
final class RateLimiter {
  private final MonotonicClock clock;
  private final long intervalNanos;
  private final AtomicLong suppressed = new AtomicLong();

  /** When the next event may pass, in the clock's nanoseconds; the first passes at once. */
  private long nextAllowed;

  private boolean passedOnce;

  RateLimiter(MonotonicClock clock, long intervalNanos) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("intervalNanos " + intervalNanos + " must be positive");
    }
    this.clock = clock;
    this.intervalNanos = intervalNanos;
  }

  /**
   * Returns -1 if this event is held back, else how many were held back since the last one let
   * through.
   */
  long tryAcquire() {
    long now = clock.nanos();
    synchronized (this) {
      if (!passedOnce || now - nextAllowed >= 0) {
        passedOnce = true;
        nextAllowed = now + intervalNanos;
        return suppressed.getAndSet(0);
      }
    }
    suppressed.incrementAndGet();
    return -1;
  }
}
