package dev.elector.fabric8;

import dev.elector.k8s.AbstractLeaseEventsIT;
import dev.elector.lock.LeaderLock;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import java.time.Duration;

/** {@code recordEvents(true)} on the fabric8 Lease lock (see {@link AbstractLeaseEventsIT}). */
class Fabric8EventsIT extends AbstractLeaseEventsIT {
  private final Fabric8Clients clients = new Fabric8Clients();

  @Override
  protected void afterElectorsClosed() {
    clients.close();
  }

  @Override
  protected LeaderLock eventsLock(
      KubeCluster cluster,
      KubeIdentity who,
      String namespace,
      String name,
      String identity,
      String component) {
    return Fabric8LeaseLock.newBuilder(clients.of(cluster, who.client()))
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(Duration.ofSeconds(1))
        .recordEvents(true)
        .eventComponent(component)
        .build();
  }
}
