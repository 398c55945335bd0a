package dev.elector.quarkus.internal;

import dev.elector.LeaderElector;
import dev.elector.micrometer.ElectorMetrics;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Binds the elector's meters (client-go's {@code leader_election_master_status} gauge and the
 * {@code elector_*} meters, see {@link ElectorMetrics}) to Quarkus' registry: quarkus-micrometer
 * binds every {@link MeterBinder} bean. Registered only with quarkus-micrometer enabled and {@code
 * quarkus.elector.metrics.enabled=true}.
 */
@Singleton
public class ElectorMeters {
  /** For CDI. */
  public ElectorMeters() {}

  @Produces
  @Singleton
  MeterBinder electorMetrics(LeaderElector elector) {
    return ElectorMetrics.of(elector);
  }
}
