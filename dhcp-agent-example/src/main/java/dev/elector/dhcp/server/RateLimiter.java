package dev.elector.dhcp.server;

import dev.elector.time.MonotonicClock;
import java.util.concurrent.atomic.AtomicLong;

/** Lets one event through per interval and counts the ones it held back in between. */
final class RateLimiter {
  private final MonotonicClock clock;
  private final long intervalNanos;
  private final AtomicLong nextAllowed;
  private final AtomicLong suppressed = new AtomicLong();

  RateLimiter(MonotonicClock clock, long intervalNanos) {
    this.clock = clock;
    this.intervalNanos = intervalNanos;
    this.nextAllowed = new AtomicLong(clock.nanos());
  }

  /**
   * Returns -1 if this event is held back, else how many were held back since the last one let
   * through.
   */
  long tryAcquire() {
    long now = clock.nanos();
    long next = nextAllowed.get();
    if (now - next >= 0 && nextAllowed.compareAndSet(next, now + intervalNanos)) {
      return suppressed.getAndSet(0);
    }
    suppressed.incrementAndGet();
    return -1;
  }
}
