package dev.elector;

import dev.elector.time.TokenBucket;
import java.time.Duration;

/**
 * The hard bound on lock calls: a {@link TokenBucket}. In any interval of length T a candidate
 * makes at most {@code burst + T / interval} calls, whatever state it is in and whatever fails.
 * Used under the election's lock.
 */
final class CallBudget {
  private final TokenBucket bucket;

  CallBudget(int burst, long intervalNanos) {
    this.bucket = TokenBucket.of(burst, Duration.ofNanos(intervalNanos));
  }

  /**
   * Spends one call if the budget allows it now.
   *
   * @return 0 if the call may go ahead, else the nanoseconds to wait before asking again
   */
  long tryAcquire(long now) {
    return bucket.tryAcquire(now);
  }
}
