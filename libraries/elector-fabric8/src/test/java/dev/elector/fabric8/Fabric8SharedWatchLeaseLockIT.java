package dev.elector.fabric8;

import dev.elector.kube.KubeLock;
import io.kubernetes.client.openapi.ApiClient;
import java.nio.file.Path;
import java.util.List;

/**
 * The whole Lease lock contract again with every fabric8 lock built with {@code sharedWatch(true)}:
 * candidates on one client share one watch of the namespace's Leases, under the shipped rbac.yaml
 * with rbac-shared-watch.yaml next to it.
 */
class Fabric8SharedWatchLeaseLockIT extends Fabric8LeaseLockIT {

  @Override
  protected KubeLock newLock(ApiClient client, String namespace, String name, String identity) {
    return Fabric8LeaseLock.newBuilder(clients.of(cluster, client))
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(REQUEST_TIMEOUT)
        .sharedWatch(true)
        .build();
  }

  @Override
  protected List<Path> rbacManifests() {
    return List.of(
        Path.of("..", "..", "deploy", "lease", "rbac.yaml"),
        Path.of("..", "..", "deploy", "lease", "rbac-shared-watch.yaml"));
  }
}
