package dev.elector.k8s;

import dev.elector.k8s.internal.KubeHttp;
import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.LockBuilder;
import dev.elector.kube.internal.ObjectKind;
import io.kubernetes.client.openapi.ApiClient;
import java.util.Objects;

/**
 * Locks in {@code coordination.k8s.io/v1} Leases through client-java, compatible with client-go's
 * LeaseLock: Go and Java candidates can share one Lease.
 *
 * <pre>{@code
 * KubeLock lock = LeaseLock.newBuilder(ClientBuilder.standard().build())
 *     .name("my-operator-leader")        // namespace from POD_NAMESPACE, identity from POD_NAME
 *     .build();
 * }</pre>
 *
 * <p>Reads GET the Lease. Creates POST the whole object; 409 is a conflict. A renewal is one JSON
 * merge patch of only the record's fields, with {@code metadata.resourceVersion} as precondition,
 * so nothing else in the object is touched; 409 or a deleted Lease is a conflict. API errors become
 * failures naming the missing Role rule. Every request is bounded by the call's timeout (or the
 * builder's requestTimeout when shorter); a call the elector cancels is not sent, or its OkHttp
 * call is cancelled in flight. The requests and their meaning are those of every Elector backend
 * (elector-kube-base); these locks send them through the given {@link ApiClient}, whose credentials
 * and TLS are the lock's.
 *
 * <p>The identity needs a Role in the lock's namespace with {@code get, list, watch, patch} on
 * {@code leases} restricted to the lock's name, and {@code create} on {@code leases} (which
 * Kubernetes cannot restrict by name); see {@code deploy/lease/rbac.yaml}. With {@link
 * KubeLock.Builder#recordEvents recordEvents(true)} it also needs {@code create} on {@code events}
 * ({@code deploy/lease/rbac-events.yaml}). The locks are thread-safe.
 */
public final class LeaseLock {
  private LeaseLock() {}

  /**
   * Returns a builder of a lock in a Lease, talking to the API server through {@code apiClient};
   * {@code name} is required.
   *
   * @throws NullPointerException if {@code apiClient} is null
   */
  public static KubeLock.Builder newBuilder(ApiClient apiClient) {
    return new LockBuilder<>(
        ObjectKind.LEASE, Objects.requireNonNull(apiClient, "apiClient"), KubeHttp::new);
  }
}
