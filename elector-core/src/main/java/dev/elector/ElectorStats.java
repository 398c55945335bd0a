package dev.elector;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A snapshot of an elector: what it is doing and whether it is healthy, read together so that they
 * agree, and its counters as they stand just after. Every count only grows; {@code leading}, {@code
 * observedLeader}, {@code watching}, {@code polling}, {@code consecutiveFailures}, {@code healthy}
 * and {@code status} describe the present.
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
 * @param watching whether this candidate follows the lock through a working watch, making no calls
 *     while the leader is healthy
 * @param polling whether this candidate follows the lock by reading it every retry period: the lock
 *     cannot be watched, watching is turned off, or the watch is interrupted ({@code status} says
 *     which); {@code watching} and {@code polling} are both false while it leads, waits for its
 *     readiness gate or is closed
 * @param consecutiveFailures a candidate's failed lock calls in a row (counting a lost term as
 *     one), 0 after a call succeeds; a leader's failing renewals show in {@code calls}
 * @param healthy the verdict for a liveness probe: false when the elector leads but has not renewed
 *     for longer than leaseDuration plus the health tolerance (it should have stepped down: its
 *     threads may be stalled), when its readiness gate failed, or once close has begun; a candidate
 *     whose calls keep failing stays healthy, since restarting the process would not mend them
 * @param status one line on what the elector is doing, for a health endpoint; a candidate whose
 *     calls keep failing names the failures in a row and the last one, so a missing permission
 *     shows there with the rule to add; "closing", then "closed", once close has begun
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
    boolean watching,
    boolean polling,
    int consecutiveFailures,
    boolean healthy,
    String status) {

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
