package dev.elector.k8s;

import io.kubernetes.client.openapi.ApiClient;
import java.nio.file.Path;

/**
 * The whole lock contract again, with every lock built with {@code sharedWatch(true)}: candidates
 * of one test share one watch of the namespace's Leases, under the shipped RBAC for sharing.
 */
class SharedWatchLeaseLockIT extends LeaseLockIT {

  @Override
  protected KubeObjectLock newLock(
      ApiClient client, String namespace, String name, String identity) {
    return LeaseLock.newBuilder()
        .apiClient(client)
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(RENEW.dividedBy(2))
        .sharedWatch(true)
        .build();
  }

  @Override
  protected Path rbacManifest() {
    return Path.of("..", "deploy", "lease", "rbac-shared-watch.yaml");
  }
}
