package dev.elector.quarkus;

import dev.elector.Term;
import java.util.Objects;

/**
 * A CDI event: this replica has started leading. Observe it to start the leader's work; the term's
 * {@link Term#fencingToken()} increases strictly across terms of the lock, so writes elsewhere can
 * carry it as a fencing token.
 *
 * <p>Observers run one at a time, in order, on the elector's callback thread, never on the thread
 * that renews the lease: an observer that blocks delays later events, not a renewal. An observer
 * that throws is logged and the election goes on.
 *
 * @param term the term that started; {@link Term#isActive()} turns false when it ends
 */
public record LeadershipGranted(Term term) {
  /** Checks the term is given. */
  public LeadershipGranted {
    Objects.requireNonNull(term, "term");
  }
}
