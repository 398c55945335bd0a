package dev.elector.fabric8;

import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.LockBuilder;
import dev.elector.kube.internal.ObjectKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;

/**
 * Locks in a {@code coordination.k8s.io/v1} Lease through fabric8's {@code KubernetesClient},
 * compatible with client-go's LeaseLock and with Elector's client-java {@code LeaseLock}: Go,
 * client-java and fabric8 candidates can share one Lease.
 *
 * <pre>{@code
 * KubernetesClient client = new KubernetesClientBuilder().build();
 * KubeLock lock = Fabric8LeaseLock.newBuilder(client)
 *     .name("my-operator-leader")        // namespace from POD_NAMESPACE, identity from POD_NAME
 *     .build();
 * }</pre>
 *
 * <p>Reads GET the Lease; a renewal is one JSON merge patch of the spec with {@code
 * metadata.resourceVersion} as precondition. The identity needs a Role in the lock's namespace with
 * {@code get, list, watch, patch} on {@code leases} restricted to the lock's name, and {@code
 * create} on {@code leases}; see {@code deploy/lease/rbac.yaml}. With {@code recordEvents(true)} it
 * also needs {@code create} on {@code events} ({@code deploy/lease/rbac-events.yaml}). The locks
 * are thread-safe.
 */
public final class Fabric8LeaseLock {
  private Fabric8LeaseLock() {}

  /**
   * Returns a builder of a lock in a Lease, talking to the API server through {@code client} (its
   * credentials, TLS and HTTP client are the lock's; the lock never closes it, and fabric8's own
   * request retries are not used: the elector retries on its own schedule); {@code name} is
   * required.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static KubeLock.Builder newBuilder(KubernetesClient client) {
    return new LockBuilder<>(
        ObjectKind.LEASE, Objects.requireNonNull(client, "client"), Fabric8Http::new);
  }
}
