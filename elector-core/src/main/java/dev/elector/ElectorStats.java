package dev.elector;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A snapshot of an elector's counters. Every figure only grows, except {@code leading}, {@code
 * observedLeader}, {@code following} and {@code consecutiveFailures}, which describe the present.
 *
 * @param calls lock calls made, by kind and outcome
 * @param deferredCalls calls held back by the call budget
 * @param lateResults call results that arrived after the elector stopped waiting and were ignored;
 *     rare from a lock that stops a call when the elector cancels it
 * @param termsStarted terms this candidate started
 * @param termsEnded terms this candidate ended
 * @param leading whether this candidate leads now
 * @param observedLeader the holder last seen in the lock, if any
 * @param latency the calls that were answered or timed out, and the time they took, by purpose
 * @param termsEndedBy terms this candidate ended, by reason; the values sum to {@code termsEnded}
 * @param following how this candidate learns of changes to the lock while it follows
 * @param consecutiveFailures a candidate's failed lock calls in a row (counting a lost term as
 *     one), 0 after a call succeeds; a leader's failing renewals show in {@code calls}
 */
public record ElectorStats(
    Map<LockCall, Map<CallOutcome, Long>> calls,
    long deferredCalls,
    long lateResults,
    long termsStarted,
    long termsEnded,
    boolean leading,
    Optional<String> observedLeader,
    Map<CallPurpose, CallTime> latency,
    Map<TermEnd, Long> termsEndedBy,
    Following following,
    int consecutiveFailures) {

  /** How a candidate that does not lead learns of changes to the lock. */
  public enum Following {
    /** Not following: leading, waiting for the readiness gate, or closed. */
    NONE,
    /** Following through a working watch: no calls while the leader is healthy. */
    WATCHING,
    /**
     * Following by reading the lock every retry period: the lock cannot be watched, watching is
     * turned off, or the watch is interrupted (see {@link LeaderElector#health()} for why).
     */
    POLLING
  }

  /**
   * How many calls of one purpose finished (answered or timed out) and their summed latency.
   *
   * @param count calls finished
   * @param totalNanos their latencies summed, in nanoseconds on the elector's monotonic clock
   */
  public record CallTime(long count, long totalNanos) {
    /** The summed latency as a duration. */
    public Duration total() {
      return Duration.ofNanos(totalNanos);
    }
  }

  /** Total lock calls made, all kinds and outcomes. */
  public long totalCalls() {
    return calls.values().stream()
        .flatMap(byOutcome -> byOutcome.values().stream())
        .mapToLong(Long::longValue)
        .sum();
  }

  /** Calls of one kind and outcome. */
  public long calls(LockCall call, CallOutcome outcome) {
    return calls.getOrDefault(call, Map.of()).getOrDefault(outcome, 0L);
  }

  /** Count and summed latency of the calls of one purpose. */
  public CallTime latency(CallPurpose purpose) {
    return latency.getOrDefault(purpose, new CallTime(0, 0));
  }

  /** Terms ended for one reason. */
  public long termsEnded(TermEnd reason) {
    return termsEndedBy.getOrDefault(reason, 0L);
  }
}
