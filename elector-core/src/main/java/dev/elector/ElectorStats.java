package dev.elector;

import java.util.Map;
import java.util.Optional;

/**
 * A snapshot of an elector's counters.
 *
 * @param calls lock calls made, by kind and outcome
 * @param deferredCalls calls held back by the call budget
 * @param lateResults call results that arrived after their timeout and were ignored
 * @param termsStarted terms this candidate started
 * @param termsEnded terms this candidate ended
 * @param leading whether this candidate leads now
 * @param observedLeader the holder last seen in the lock, if any
 */
public record ElectorStats(
    Map<LockCall, Map<CallOutcome, Long>> calls,
    long deferredCalls,
    long lateResults,
    long termsStarted,
    long termsEnded,
    boolean leading,
    Optional<String> observedLeader) {

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
}
