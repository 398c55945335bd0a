package dev.elector;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A snapshot of an elector's counters. Every figure only grows, except {@code leading}, {@code
 * observedLeader}, {@code following} and {@code consecutiveFailures}, which describe the present.
 *
 * @param calls lock calls made (answered or timed out), by what they were for and how they ended
 * @param deferredCalls calls held back by the call budget
 * @param lateResults call results that arrived after the elector stopped waiting and were ignored;
 *     rare from a lock that stops a call when the elector cancels it
 * @param termsStarted terms this candidate started
 * @param termsEnded terms this candidate ended
 * @param leading whether this candidate leads now
 * @param observedLeader the holder last seen in the lock, if any
 * @param latency the time the calls took, summed by what they were for; divided by {@link
 *     #calls(LockCall)} it is their mean
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
    Map<LockCall, Duration> latency,
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

  /** Calls of one kind, all outcomes. */
  public long calls(LockCall call) {
    return calls.getOrDefault(call, Map.of()).values().stream().mapToLong(Long::longValue).sum();
  }

  /** The summed latency of the calls of one kind. */
  public Duration latency(LockCall call) {
    return latency.getOrDefault(call, Duration.ZERO);
  }

  /** Terms ended for one reason. */
  public long termsEnded(TermEnd reason) {
    return termsEndedBy.getOrDefault(reason, 0L);
  }
}
