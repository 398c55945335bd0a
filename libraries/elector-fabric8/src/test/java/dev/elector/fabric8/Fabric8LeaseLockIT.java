package dev.elector.fabric8;

import dev.elector.k8s.LeaseLockIT;
import dev.elector.kube.KubeLock;
import io.kubernetes.client.openapi.ApiClient;

/**
 * The whole Lease lock contract on the real API server with {@link Fabric8LeaseLock}: every
 * scenario of {@link LeaseLockIT} (and its suite), the lock built on a fabric8 client with the same
 * credentials; outside writes still go through client-java, which also shows that the two clients
 * read each other's records.
 */
class Fabric8LeaseLockIT extends LeaseLockIT {
  final Fabric8Clients clients = new Fabric8Clients();

  @Override
  protected KubeLock newLock(ApiClient client, String namespace, String name, String identity) {
    return Fabric8LeaseLock.newBuilder(clients.of(cluster, client))
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(REQUEST_TIMEOUT)
        .build();
  }

  @Override
  protected void afterElectorsClosed() {
    clients.close();
  }
}
