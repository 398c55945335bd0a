package dev.elector.docs.snippets;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.k8s.LeaseLock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/** The snippets of the migration guide: each elector before, and Elector after. */
final class Migration {
  private Migration() {}

  static void fromClientJavaExtended(ApiClient apiClient, String namespace, String podName,
      ExecutorService pool) {
    {
      // tag::client-java-extended-before[]
      // before: io.kubernetes.client.extended.leaderelection
      var lock = new io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock(
          namespace, "my-operator", podName, apiClient);
      var elector = new io.kubernetes.client.extended.leaderelection.LeaderElector(
          new LeaderElectionConfig(lock,
              Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2)));
      pool.submit(() -> elector.run(() -> startWork(), () -> stopWork()));  // one term only
      // on shutdown: elector.close();
      // end::client-java-extended-before[]
    }
    {
      // tag::client-java-extended-after[]
      // after: dev.elector, dev.elector.k8s (elector-k8s-lease)
      var elector = dev.elector.LeaderElector.start(ElectorConfig.newBuilder()
          .lock(LeaseLock.newBuilder(apiClient)
              .namespace(namespace).name("my-operator").identity(podName).build())
          .callbacks(LeaderCallbacks.of(term -> startWork(), (term, reason) -> stopWork()))
          .build());                  // 15 s / 10 s / 2 s by default; re-runs after every term
      // on shutdown: elector.close();   stops the work first, then releases
      // end::client-java-extended-after[]
      elector.close();
    }
  }

  static void fromFabric8(KubernetesClient client, String namespace, String podName) {
    {
      // tag::fabric8-before[]
      // before: io.fabric8.kubernetes.client.extended.leaderelection
      var elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
          .withName("my-operator")
          .withLock(new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock
              .LeaseLock(namespace, "my-operator", podName))
          .withLeaseDuration(Duration.ofSeconds(15)).withRenewDeadline(Duration.ofSeconds(10))
          .withRetryPeriod(Duration.ofSeconds(2)).withReleaseOnCancel(true)
          .withLeaderCallbacks(new io.fabric8.kubernetes.client.extended.leaderelection
              .LeaderCallbacks(() -> startWork(), () -> stopWork(), leader -> { }))
          .build()).build();
      CompletableFuture<?> running = elector.start();   // on shutdown: running.cancel(true);
      // end::fabric8-before[]
      running.cancel(true);
    }
    {
      // tag::fabric8-after[]
      // after: dev.elector, dev.elector.fabric8 (elector-fabric8), on the same KubernetesClient
      var elector = dev.elector.LeaderElector.start(ElectorConfig.newBuilder()
          .lock(Fabric8LeaseLock.newBuilder(client)
              .namespace(namespace).name("my-operator").identity(podName).build())
          .callbacks(LeaderCallbacks.of(term -> startWork(), (term, reason) -> stopWork()))
          .build());                  // on shutdown: elector.close();
      // end::fabric8-after[]
      elector.close();
    }
  }

  static void startWork() {}

  static void stopWork() {}
}
