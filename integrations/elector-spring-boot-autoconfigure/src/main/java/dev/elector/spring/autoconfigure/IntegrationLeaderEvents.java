package dev.elector.spring.autoconfigure;

import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.spring.LeadershipEvent;
import dev.elector.spring.LeadershipGrantedEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/**
 * Republishes each leadership event as Spring Integration's {@link OnGrantedEvent} or {@link
 * OnRevokedEvent}, so that code written for Spring Integration's leader API (and its {@code
 * SmartLifecycleRoleController}) runs on Elector unchanged.
 */
final class IntegrationLeaderEvents implements ApplicationListener<LeadershipEvent> {
  private final ApplicationEventPublisher publisher;
  private final String role;

  IntegrationLeaderEvents(ApplicationEventPublisher publisher, String role) {
    this.publisher = publisher;
    this.role = role;
  }

  @Override
  public void onApplicationEvent(LeadershipEvent event) {
    TermContext context = new TermContext(event.getElector(), event.getTerm(), role);
    if (event instanceof LeadershipGrantedEvent) {
      publisher.publishEvent(new OnGrantedEvent(event.getElector(), context, role));
    } else {
      publisher.publishEvent(new OnRevokedEvent(event.getElector(), context, role));
    }
  }

  /**
   * The {@link Context} of one term: leader while the term is active. {@link #yield()} steps down
   * ({@link LeaderElector#stepDown()}): the term ends, the lock is released so that another replica
   * leads at once, and this one stays a candidate that holds back for one lease duration. A term
   * that has already ended is left as it is.
   */
  static final class TermContext implements Context {
    private final LeaderElector elector;
    private final Term term;
    private final String role;

    TermContext(LeaderElector elector, Term term, String role) {
      this.elector = elector;
      this.term = term;
      this.role = role;
    }

    @Override
    public boolean isLeader() {
      return term.isActive();
    }

    @Override
    public String getRole() {
      return role;
    }

    @Override
    public void yield() {
      // Only this context's own term: a later term of the same elector is not this caller's.
      if (elector.currentTerm().filter(current -> current == term).isPresent()) {
        elector.stepDown();
      }
    }

    @Override
    public String toString() {
      return "TermContext{role=" + role + ", leader=" + isLeader() + ", " + term + '}';
    }
  }
}
