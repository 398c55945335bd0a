package dev.elector.spring;

import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;

/**
 * This replica stopped leading: published exactly once for every term that was granted, with the
 * reason. When it arrives the term is already inactive.
 */
public final class LeadershipRevokedEvent extends LeadershipEvent {
  private static final long serialVersionUID = 1L;

  /**
   * @serial why the term ended
   */
  private final TermEnd reason;

  /** An event for the end of {@code term} of {@code source}, for {@code reason}. */
  public LeadershipRevokedEvent(LeaderElector source, Term term, TermEnd reason) {
    super(source, term);
    this.reason = reason;
  }

  /** Why the term ended: closed, lock lost, or renew deadline exceeded. */
  public TermEnd getReason() {
    return reason;
  }

  @Override
  public String toString() {
    return "LeadershipRevokedEvent{" + getTerm() + ", " + reason + '}';
  }
}
