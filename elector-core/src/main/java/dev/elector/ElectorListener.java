package dev.elector;

import java.time.Duration;

/**
 * Receives the elector's events, for metrics. Methods run on the elector's own thread while it
 * decides, so they must be quick and must not block (increment a counter, set a gauge); an
 * exception thrown here is logged and ignored.
 */
public interface ElectorListener {

  /** A listener that ignores everything. */
  ElectorListener NONE = new ElectorListener() {};

  /**
   * A listener that notifies {@code first}, then {@code then}; {@code then} hears each event even
   * if {@code first} throws.
   */
  static ElectorListener both(ElectorListener first, ElectorListener then) {
    return Listeners.both(first, then);
  }

  /** A lock call finished. */
  default void onLockCall(LockCall call, CallOutcome outcome, Duration latency) {}

  /** A call was held back because the candidate's call budget was spent. */
  default void onCallDeferred(Duration wait) {}

  /** This candidate started leading. */
  default void onTermStarted(Term term) {}

  /** This candidate stopped leading. */
  default void onTermEnded(Term term, TermEnd reason) {}

  /** A different holder was observed in the lock; empty when the lock was released. */
  default void onLeaderObserved(String identity) {}
}
