package dev.elector.examples.quarkus;

import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.quarkus.LeadershipGranted;
import dev.elector.quarkus.LeadershipRevoked;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * The leader's work: started when this replica is granted leadership, stopped when it is revoked.
 * Here the work is a log line per term; a real application would start its controllers or
 * scheduled jobs, carrying the term's fencing token on what it writes.
 */
@Singleton
public class LeaderWork {
  private static final Logger log = Logger.getLogger(LeaderWork.class);

  private final LeaderElector elector;
  private final AtomicReference<Term> current = new AtomicReference<>();

  public LeaderWork(LeaderElector elector) {
    this.elector = elector;
  }

  void announce(@Observes StartupEvent event) {
    log.infof("%s is a candidate for %s", elector.identity(), elector.describe());
  }

  void start(@Observes LeadershipGranted granted) {
    current.set(granted.term());
    log.infof(
        "%s started leading (fencing token %d)",
        granted.term().identity(), granted.term().fencingToken());
  }

  void stop(@Observes LeadershipRevoked revoked) {
    current.compareAndSet(revoked.term(), null);
    log.infof("%s stopped leading: %s", revoked.term().identity(), revoked.reason());
  }
}
