package dev.elector.fabric8;

import dev.elector.configmap.ConfigMapLockIT;
import dev.elector.kube.KubeLock;
import io.kubernetes.client.openapi.ApiClient;

/**
 * The whole ConfigMap lock contract on the real API server with {@link Fabric8ConfigMapLock}: every
 * scenario of {@link ConfigMapLockIT} (and its suite), including that data, labels and other
 * annotations survive and that a garbled annotation is taken over only after a whole lease.
 */
class Fabric8ConfigMapLockIT extends ConfigMapLockIT {
  private final Fabric8Clients clients = new Fabric8Clients();

  @Override
  protected KubeLock newLock(ApiClient client, String namespace, String name, String identity) {
    return Fabric8ConfigMapLock.newBuilder(clients.of(cluster, client))
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
