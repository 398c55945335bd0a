package dev.elector.spring.autoconfigure;

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
    TermContext context = new TermContext(event.getTerm(), role);
    if (event instanceof LeadershipGrantedEvent) {
      publisher.publishEvent(new OnGrantedEvent(event.getElector(), context, role));
    } else {
      publisher.publishEvent(new OnRevokedEvent(event.getElector(), context, role));
    }
  }

  /**
   * The {@link Context} of one term: leader while the term is active. {@link #yield()} cannot step
   * down and stay a candidate, since Elector has no such operation yet; it throws {@link
   * UnsupportedOperationException} saying so rather than do nothing.
   */
  static final class TermContext implements Context {
    private final Term term;
    private final String role;

    TermContext(Term term, String role) {
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
      throw new UnsupportedOperationException(
          "Elector cannot yet step down and stay a candidate (term "
              + term.fencingToken()
              + " of "
              + term.lock()
              + "); to give up leadership for good, close the LeaderElector bean, or stop the"
              + " application so that its lock is released");
    }

    @Override
    public String toString() {
      return "TermContext{role=" + role + ", leader=" + isLeader() + ", " + term + '}';
    }
  }
}
