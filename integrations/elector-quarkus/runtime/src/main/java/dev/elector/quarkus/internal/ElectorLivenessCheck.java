package dev.elector.quarkus.internal;

import dev.elector.ElectorStats;
import dev.elector.LeaderElector;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

/**
 * The liveness check {@code elector}: UP while the elector is healthy, whether it leads or follows;
 * DOWN only when a leader has gone past its lease without renewing (its threads may be stalled) or
 * once it is closing. Following is no reason to restart a replica, so leading is data, not status.
 * Registered only with quarkus-smallrye-health and {@code quarkus.elector.health.enabled=true}.
 */
@Liveness
@Singleton
public class ElectorLivenessCheck implements HealthCheck {
  /** The check's name in {@code /q/health}. */
  public static final String NAME = "elector";

  private final LeaderElector elector;

  /** For CDI. */
  public ElectorLivenessCheck(LeaderElector elector) {
    this.elector = elector;
  }

  @Override
  public HealthCheckResponse call() {
    ElectorStats stats = elector.stats();
    HealthCheckResponseBuilder response =
        HealthCheckResponse.named(NAME)
            .status(stats.healthy())
            .withData("leading", stats.leading())
            .withData("identity", elector.identity())
            .withData("lock", elector.describe())
            .withData("leader", stats.observedLeader().orElse(""))
            .withData("detail", stats.status());
    if (stats.leading()) {
      elector.currentTerm().ifPresent(term -> response.withData("term", term.fencingToken()));
    }
    return response.build();
  }
}
