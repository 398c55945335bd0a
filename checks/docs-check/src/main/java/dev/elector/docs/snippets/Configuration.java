package dev.elector.docs.snippets;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.lock.LeaderLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The snippets of the configuration reference. */
final class Configuration {
  private Configuration() {}

  static LeaderElector timings(LeaderLock lock, LeaderCallbacks callbacks,
      CompletableFuture<Void> cachesSynced) {
    // tag::timings[]
    ElectorConfig config = ElectorConfig.newBuilder()
        .lock(lock)
        .callbacks(callbacks)
        .leaseDuration(Duration.ofSeconds(15))   // how long others wait after the last renewal
        .renewDeadline(Duration.ofSeconds(10))   // a leader that cannot renew steps down by then
        .retryPeriod(Duration.ofSeconds(2))      // renew and retry period
        .readinessGate(cachesSynced)             // stand for election only once this completes
        .build();
    LeaderElector elector = LeaderElector.start(config);
    // end::timings[]
    return elector;
  }

  static ElectorConfig variant(ElectorConfig config) {
    // tag::variant[]
    ElectorConfig slower = config.toBuilder()
        .leaseDuration(Duration.ofSeconds(60))
        .renewDeadline(Duration.ofSeconds(40))
        .retryPeriod(Duration.ofSeconds(8))
        .build();
    // end::variant[]
    return slower;
  }
}
