package dev.elector.spring;

import dev.elector.LeaderElector;
import dev.elector.Term;

/**
 * This replica started leading: published once per term, after its write to the lock succeeded.
 * Listeners run on the elector's callback thread; one that blocks delays later events, not the
 * elector's renewals.
 */
public final class LeadershipGrantedEvent extends LeadershipEvent {
  private static final long serialVersionUID = 1L;

  /** An event for {@code term} of {@code source}. */
  public LeadershipGrantedEvent(LeaderElector source, Term term) {
    super(source, term);
  }

  @Override
  public String toString() {
    return "LeadershipGrantedEvent{" + getTerm() + '}';
  }
}
