package dev.elector.docs.snippets;

// tag::imports[]
import dev.elector.Term;
import dev.elector.spring.CurrentTerm;
import dev.elector.spring.LeaderOnly;
import dev.elector.spring.LeadershipGrantedEvent;
import dev.elector.spring.LeadershipRevokedEvent;
// end::imports[]
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** The snippets of the Spring Boot guide. */
final class SpringBoot {
  private SpringBoot() {}

  /** Stands in for the application's own store, which checks the fencing token it is given. */
  interface ReportStore {
    Iterable<String> pending();

    void write(String report, long fencingToken);
  }

  // tag::leader-only[]
  @Component
  static class Reports {
    private final ReportStore store;

    Reports(ReportStore store) {
      this.store = store;
    }

    @Scheduled(fixedDelay = 60_000)
    @LeaderOnly                                   // skipped unless this replica leads
    public void publish() {
      Term term = CurrentTerm.get().orElseThrow(); // the term this call runs in
      for (String report : store.pending()) {
        if (!term.isActive()) {
          return;                                 // the term ended: the next leader takes over
        }
        store.write(report, term.fencingToken());
      }
    }
  }
  // end::leader-only[]

  static class Nightly {
    private final ReportStore store;

    Nightly(ReportStore store) {
      this.store = store;
    }

    // tag::readme[]
    @Scheduled(cron = "0 0 2 * * *")
    @LeaderOnly                                    // runs only while this replica leads
    public void compact() {
      Term term = CurrentTerm.get().orElseThrow(); // its fencing token goes with each write
      store.write("compacted", term.fencingToken());
    }
    // end::readme[]
  }

  static class Index {
    private final ReportStore store;

    Index(ReportStore store) {
      this.store = store;
    }

    // tag::term-parameter[]
    @LeaderOnly
    public void rebuild(Term term) {              // receives the current term, whatever is passed
      store.write("index", term.fencingToken());
    }
    // end::term-parameter[]
  }

  // tag::events[]
  @Component
  static class Transitions {
    @EventListener
    public void granted(LeadershipGrantedEvent event) {
      System.out.println("leading, fencing token " + event.getTerm().fencingToken());
    }

    @EventListener
    public void revoked(LeadershipRevokedEvent event) {
      System.out.println("stopped leading: " + event.getReason()); // CLOSED, LOCK_LOST, ...
    }
  }
  // end::events[]

  // tag::integration[]
  @Component
  static class FromSpringIntegration {
    @EventListener
    public void granted(OnGrantedEvent event) {   // unchanged code written for Spring Integration
      System.out.println(event.getRole() + " granted, leader: " + event.getContext().isLeader());
    }

    @EventListener
    public void revoked(OnRevokedEvent event) {
      System.out.println(event.getRole() + " revoked");
    }
  }
  // end::integration[]
}
