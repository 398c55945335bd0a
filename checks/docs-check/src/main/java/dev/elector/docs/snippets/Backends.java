package dev.elector.docs.snippets;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.configmap.ConfigMapLock;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.WatchMode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

/** The snippets of the client-java and fabric8 guides. */
final class Backends {
  private Backends() {}

  static KubeLock everyLeaseOption(ApiClient client) {
    // tag::lease-options[]
    KubeLock lock = LeaseLock.newBuilder(client)
        .name("my-operator")                 // required: the Lease's name
        .namespace("my-namespace")           // default: POD_NAMESPACE, else the ServiceAccount's
        .identity("my-operator-0")           // default: POD_NAME (or host name) + "_" + a suffix
        .requestTimeout(Duration.ofSeconds(2))   // at most callTimeout (default: callTimeout, up to 5 s)
        .watchMode(WatchMode.AUTO)           // AUTO (default), SHARED or PER_LOCK
        .recordEvents(true)                  // Kubernetes Events on the Lease (default false)
        .eventComponent("my-operator")       // the Events' source (default "elector")
        .executor(Executors.newFixedThreadPool(2))   // API requests (default: 8 shared threads)
        .build();
    // end::lease-options[]
    return lock;
  }

  static KubeLock configMap(ApiClient client) {
    // tag::configmap[]
    KubeLock lock = ConfigMapLock.newBuilder(client)
        .name("my-operator")                 // the ConfigMap's name; its data is left alone
        .build();
    // end::configmap[]
    return lock;
  }

  static KubeLock fromTheIde() throws IOException {
    // tag::ide[]
    // Outside a pod there is no POD_NAMESPACE: name the namespace (and, if you like, the identity).
    KubeLock lock = LeaseLock.newBuilder(Config.defaultClient())   // $KUBECONFIG or ~/.kube/config
        .namespace("default")
        .name("elector-leader")
        .identity(System.getProperty("user.name") + "-ide")
        .build();
    // end::ide[]
    return lock;
  }

  static List<LeaderElector> manyLocks(ApiClient client, LeaderCallbacks callbacks) {
    List<LeaderElector> electors = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      // tag::many-locks[]
      // Nothing to set: a thousand of these share one watch and at most 8 request threads.
      KubeLock lock = LeaseLock.newBuilder(client).name("shard-" + i).build();
      // end::many-locks[]
      electors.add(
          LeaderElector.start(ElectorConfig.newBuilder().lock(lock).callbacks(callbacks).build()));
    }
    return electors;
  }

  static LeaderElector fabric8(LeaderCallbacks callbacks) {
    // tag::fabric8[]
    KubernetesClient client = new KubernetesClientBuilder().build();   // the pod's ServiceAccount
    KubeLock lock = Fabric8LeaseLock.newBuilder(client)   // the lock never closes it
        .name("elector-leader")              // namespace from POD_NAMESPACE, identity from POD_NAME
        .build();
    LeaderElector elector = LeaderElector.start(ElectorConfig.newBuilder()
        .lock(lock)
        .callbacks(callbacks)
        .build());
    // end::fabric8[]
    return elector;
  }
}
