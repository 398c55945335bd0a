package dev.elector;

import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What an elector tells its user. Callbacks run one at a time, in order, on the configured callback
 * executor, never on the thread that renews the lease: a callback that blocks or throws cannot
 * delay a renewal. A throwing callback is logged at ERROR and the election goes on.
 */
public interface LeaderCallbacks {

  /** Called after this candidate's write won the lock. Start the leader's work here. */
  void onStartedLeading(Term term);

  /**
   * Called exactly once for every term that started, after {@link Term#isActive()} turned false.
   * Stop the leader's work here. On close, the lock is released only after this returns (within the
   * close timeout).
   */
  void onStoppedLeading(Term term, TermEnd reason);

  /** Called when a different holder is observed, including this candidate. Optional. */
  default void onNewLeader(String identity) {}

  /** Builds callbacks from two functions. */
  static LeaderCallbacks of(Consumer<Term> started, BiConsumer<Term, TermEnd> stopped) {
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(stopped, "stopped");
    return new LeaderCallbacks() {
      @Override
      public void onStartedLeading(Term term) {
        started.accept(term);
      }

      @Override
      public void onStoppedLeading(Term term, TermEnd reason) {
        stopped.accept(term, reason);
      }
    };
  }
}
