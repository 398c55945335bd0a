package dev.elector.spring;

import dev.elector.LeaderElector;
import dev.elector.Term;
import org.springframework.context.ApplicationEvent;

/**
 * A change of this replica's leadership, published to the application context on the elector's
 * callback thread. The source is the {@link LeaderElector}.
 */
public abstract class LeadershipEvent extends ApplicationEvent {
  private static final long serialVersionUID = 1L;

  /**
   * @serial the term that started or ended
   */
  private final transient Term term;

  LeadershipEvent(LeaderElector source, Term term) {
    super(source);
    this.term = term;
  }

  /** The term that started or ended; its fencing token orders the terms of the lock. */
  public Term getTerm() {
    return term;
  }

  /** The elector whose term this is. */
  public LeaderElector getElector() {
    return (LeaderElector) getSource();
  }
}
