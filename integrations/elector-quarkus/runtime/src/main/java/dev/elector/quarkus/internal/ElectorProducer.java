package dev.elector.quarkus.internal;

import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.kube.PodEnvironment;
import dev.elector.quarkus.LeadershipGranted;
import dev.elector.quarkus.LeadershipRevoked;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.LaunchMode;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produces the application's {@link LeaderElector} on the Quarkus-managed {@link KubernetesClient}
 * (or, in dev and test mode outside a cluster, on a lock in this process's memory), not yet started
 * ({@link ElectorLifecycle} starts and closes it). Its callbacks fire {@link LeadershipGranted} and
 * {@link LeadershipRevoked} on the elector's callback thread.
 */
@Singleton
public class ElectorProducer {
  private static final Logger log = LoggerFactory.getLogger(ElectorProducer.class);

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
    PodEnvironment environment = PodEnvironment.system();
    if (ElectorSettings.leadsAlone(config, LaunchMode.current().isDevOrTest(), environment)) {
      LeaderElector alone =
          LeaderElector.create(
              ElectorSettings.aloneConfig(config, applicationName, environment, callbacks));
      log.warn(
          "{} leads {} alone, on a lock in this process's memory ({}): every process started so"
              + " leads at the same time, so use it for local runs and tests only; set"
              + " quarkus.elector.namespace, or quarkus.elector.lead-alone=false, to elect on the"
              + " cluster",
          alone.identity(),
          alone.describe(),
          LaunchMode.current().isDevOrTest() && config.leadAlone().isEmpty()
              ? LaunchMode.current().getDefaultProfile()
                  + " mode, no quarkus.elector.namespace, not in a pod"
              : "quarkus.elector.lead-alone=true");
      return alone;
    }
    return LeaderElector.create(
        ElectorSettings.electorConfig(config, applicationName, client, environment, callbacks));
  }

  void close(@Disposes LeaderElector elector) {
    elector.close();
  }
}
