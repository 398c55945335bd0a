package dev.elector.quarkus.internal;

import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.kube.PodEnvironment;
import dev.elector.quarkus.ElectorRuntimeConfig;
import dev.elector.quarkus.LeadershipGranted;
import dev.elector.quarkus.LeadershipRevoked;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Produces the application's {@link LeaderElector} on the Quarkus-managed {@link KubernetesClient},
 * not yet started ({@link ElectorLifecycle} starts and closes it). Its callbacks fire {@link
 * LeadershipGranted} and {@link LeadershipRevoked} on the elector's callback thread.
 */
@Singleton
public class ElectorProducer {

  /** For CDI. */
  public ElectorProducer() {}

  @Produces
  @Singleton
  LeaderElector leaderElector(
      ElectorRuntimeConfig config,
      @ConfigProperty(name = "quarkus.application.name") Optional<String> applicationName,
      KubernetesClient client,
      Event<LeadershipGranted> granted,
      Event<LeadershipRevoked> revoked) {
    LeaderCallbacks callbacks =
        new LeaderCallbacks() {
          @Override
          public void onStartedLeading(Term term) {
            granted.fire(new LeadershipGranted(term));
          }

          @Override
          public void onStoppedLeading(Term term, TermEnd reason) {
            revoked.fire(new LeadershipRevoked(term, reason));
          }
        };
    return LeaderElector.create(
        ElectorSettings.electorConfig(
            config, applicationName, client, PodEnvironment.system(), callbacks));
  }

  void close(@Disposes LeaderElector elector) {
    elector.close();
  }
}
