package dev.elector;

import dev.elector.lock.LeaderLock;
import java.time.Duration;
import java.util.Objects;

/** Composes listeners. */
final class Listeners {
  private Listeners() {}

  /**
   * The listener an elector notifies: {@code configured}, then the lock's own when the lock is a
   * {@link ListeningLock}.
   */
  static ElectorListener withLockListener(ElectorListener configured, LeaderLock lock) {
    if (!(lock instanceof ListeningLock listening)) {
      return configured;
    }
    ElectorListener own =
        Objects.requireNonNull(
            listening.electorListener(), "electorListener() of " + lock.describe());
    return both(configured, own);
  }

  /** A listener that notifies {@code first}, then {@code then}, even if {@code first} throws. */
  static ElectorListener both(ElectorListener first, ElectorListener then) {
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
}
