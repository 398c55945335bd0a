package dev.elector;

import java.time.Duration;

/** Composes listeners. */
final class Listeners {
  private Listeners() {}

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
