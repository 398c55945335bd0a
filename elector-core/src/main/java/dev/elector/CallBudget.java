package dev.elector;

/**
 * The hard bound on lock calls: a generic cell-rate limiter (a token bucket without floating
 * point). In any interval of length T a candidate makes at most {@code burst + T / interval} calls,
 * whatever state it is in and whatever fails. Not thread-safe; used under the election's lock.
 */
final class CallBudget {
  private final long intervalNanos;
  private final long toleranceNanos;
  private long theoreticalArrival;
  private boolean first = true;

  CallBudget(int burst, long intervalNanos) {
    this.intervalNanos = intervalNanos;
    this.toleranceNanos = (burst - 1) * intervalNanos;
  }

  /**
   * Spends one call if the budget allows it now.
   *
   * @return 0 if the call may go ahead, else the nanoseconds to wait before asking again
   */
  long tryAcquire(long now) {
    if (first) {
      first = false;
      theoreticalArrival = now;
    }
    long allowedAt = theoreticalArrival - toleranceNanos;
    if (now - allowedAt < 0) {
      return allowedAt - now;
    }
    theoreticalArrival = Math.max(theoreticalArrival - now, 0) + now + intervalNanos;
    return 0;
  }
}
