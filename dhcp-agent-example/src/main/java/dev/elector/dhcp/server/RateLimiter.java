package dev.elector.dhcp.server;

import dev.elector.time.MonotonicClock;
import dev.elector.time.TokenBucket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one event through per interval and counts the ones it held back in between: Elector's {@link
 * TokenBucket} with a burst of one, on the server's clock. Thread-safe.
 */
final class RateLimiter {
  private final MonotonicClock clock;
  private final TokenBucket bucket;
  private final AtomicLong suppressed = new AtomicLong();

  RateLimiter(MonotonicClock clock, long intervalNanos) {
    this.clock = clock;
    this.bucket = TokenBucket.of(1, Duration.ofNanos(intervalNanos));
  }

  /**
   * Returns -1 if this event is held back, else how many were held back since the last one let
   * through.
   */
  long tryAcquire() {
    if (bucket.tryAcquire(clock.nanos()) == 0) {
      return suppressed.getAndSet(0);
    }
    suppressed.incrementAndGet();
    return -1;
  }
}
