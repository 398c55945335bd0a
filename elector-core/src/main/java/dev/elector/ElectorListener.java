package dev.elector;

import java.time.Duration;
import java.util.Objects;

/**
 * Receives the elector's events, for metrics. Methods run on the elector's own thread while it
 * decides, so they must be quick and must not block (increment a counter, set a gauge); an
 * exception thrown here is logged and ignored.
 *
 * <p>A lock may implement this interface too, to hear its elector (a Kubernetes lock records its
 * terms as Events so): the elector notifies such a lock after the configured listener, with nothing
 * to wire.
 */
public interface ElectorListener {

  /** A listener that ignores everything. */
  ElectorListener NONE = new ElectorListener() {};

  /**
   * A listener that notifies {@code first}, then {@code then}; {@code then} hears each event even
   * if {@code first} throws.
   */
  static ElectorListener both(ElectorListener first, ElectorListener then) {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(then, "then");
    if (first == ElectorListener.NONE) {
      return then;
    }
    if (then == ElectorListener.NONE) {
      return first;
    }
    return new ElectorListener() {
      @Override
      public void onLockCall(LockCall call, CallOutcome outcome, Duration latency) {
        try {
          first.onLockCall(call, outcome, latency);
        } finally {
          then.onLockCall(call, outcome, latency);
        }
      }

      @Override
      public void onCallDeferred(Duration wait) {
        try {
          first.onCallDeferred(wait);
        } finally {
          then.onCallDeferred(wait);
        }
      }

      @Override
      public void onTermStarted(Term term) {
        try {
          first.onTermStarted(term);
        } finally {
          then.onTermStarted(term);
        }
      }

      @Override
      public void onTermEnded(Term term, TermEnd reason) {
        try {
          first.onTermEnded(term, reason);
        } finally {
          then.onTermEnded(term, reason);
        }
      }

      @Override
      public void onLeaderObserved(String identity) {
        try {
          first.onLeaderObserved(identity);
        } finally {
          then.onLeaderObserved(identity);
        }
      }
    };
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
