package dev.elector;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/** The counters behind {@link ElectorStats}; written under the election's monitor, read without. */
final class ElectionCounters {
  private final Map<LockCall, Map<CallOutcome, LongAdder>> calls = new EnumMap<>(LockCall.class);
  private final LongAdder deferredCalls = new LongAdder();
  private final LongAdder lateResults = new LongAdder();
  private final LongAdder termsStarted = new LongAdder();
  private final LongAdder termsEnded = new LongAdder();
  private final Map<TermEnd, LongAdder> termsEndedBy = new EnumMap<>(TermEnd.class);
  private final Map<LockCall, LongAdder> callNanos = new EnumMap<>(LockCall.class);

  ElectionCounters() {
    for (LockCall call : LockCall.values()) {
      Map<CallOutcome, LongAdder> byOutcome = new EnumMap<>(CallOutcome.class);
      for (CallOutcome outcome : CallOutcome.values()) {
        byOutcome.put(outcome, new LongAdder());
      }
      calls.put(call, byOutcome);
      callNanos.put(call, new LongAdder());
    }
    for (TermEnd reason : TermEnd.values()) {
      termsEndedBy.put(reason, new LongAdder());
    }
  }

  void call(LockCall call, CallOutcome outcome, long nanos) {
    entry(entry(calls, call), outcome).increment();
    entry(callNanos, call).add(nanos);
  }

  /** The value for {@code key}: the constructor fills every map for all keys. */
  private static <K, V> V entry(Map<K, V> byKey, K key) {
    return Objects.requireNonNull(byKey.get(key));
  }

  void deferred() {
    deferredCalls.increment();
  }

  void lateResult() {
    lateResults.increment();
  }

  void termStarted() {
    termsStarted.increment();
  }

  void termEnded(TermEnd reason) {
    termsEnded.increment();
    entry(termsEndedBy, reason).increment();
  }

  ElectorStats snapshot(
      boolean leading,
      Optional<String> leader,
      boolean watching,
      boolean polling,
      int failures,
      boolean healthy,
      String status) {
    Map<LockCall, Map<CallOutcome, Long>> snapshot = new EnumMap<>(LockCall.class);
    calls.forEach(
        (call, byOutcome) -> {
          Map<CallOutcome, Long> counts = new EnumMap<>(CallOutcome.class);
          byOutcome.forEach((outcome, adder) -> counts.put(outcome, adder.sum()));
          snapshot.put(call, counts);
        });
    Map<LockCall, Duration> latency = new EnumMap<>(LockCall.class);
    callNanos.forEach((call, nanos) -> latency.put(call, Duration.ofNanos(nanos.sum())));
    Map<TermEnd, Long> endedBy = new EnumMap<>(TermEnd.class);
    termsEndedBy.forEach((reason, count) -> endedBy.put(reason, count.sum()));
    return new ElectorStats(
        snapshot,
        deferredCalls.sum(),
        lateResults.sum(),
        termsStarted.sum(),
        termsEnded.sum(),
        leading,
        leader,
        latency,
        endedBy,
        watching,
        polling,
        failures,
        healthy,
        status);
  }
}
