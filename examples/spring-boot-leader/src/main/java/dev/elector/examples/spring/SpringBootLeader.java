package dev.elector.examples.spring;

import dev.elector.Term;
import dev.elector.spring.CurrentTerm;
import dev.elector.spring.LeaderOnly;
import dev.elector.spring.LeadershipGrantedEvent;
import dev.elector.spring.LeadershipRevokedEvent;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** A service whose report job runs on the leader only. */
@SpringBootApplication
@EnableScheduling
public class SpringBootLeader {
  public static void main(String[] args) {
    SpringApplication.run(SpringBootLeader.class, args);
  }

  /** The leader-only job: once a second, stamped with the term's fencing token. */
  @Component
  public static class Report {
    private static final Logger log = LoggerFactory.getLogger(Report.class);
    private final AtomicLong runs = new AtomicLong();

    @Scheduled(fixedDelay = 1000)
    @LeaderOnly
    public void run() {
      Term term = CurrentTerm.get().orElseThrow();
      log.info("report {} written with fencing token {}", runs.incrementAndGet(), term.fencingToken());
    }
  }

  /** Logs leadership changes. */
  @Component
  public static class Transitions {
    private static final Logger log = LoggerFactory.getLogger(Transitions.class);

    @EventListener
    public void granted(LeadershipGrantedEvent event) {
      log.info(
          "{} started leading (fencing token {})",
          event.getTerm().identity(),
          event.getTerm().fencingToken());
    }

    @EventListener
    public void revoked(LeadershipRevokedEvent event) {
      log.info("{} stopped leading: {}", event.getTerm().identity(), event.getReason());
    }
  }
}
