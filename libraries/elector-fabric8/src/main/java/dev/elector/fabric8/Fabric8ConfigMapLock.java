package dev.elector.fabric8;

import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.ConfigMapShape;
import dev.elector.kube.internal.LockBuilder;
import dev.elector.kube.internal.ObjectKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;

/**
 * Locks in a ConfigMap's annotation {@value #ANNOTATION} through fabric8's {@code
 * KubernetesClient}, holding the JSON client-go's ConfigMapLock used ({@code holderIdentity,
 * leaseDurationSeconds, acquireTime, renewTime, leaderTransitions}); compatible with Elector's
 * client-java {@code ConfigMapLock}. For clusters or tools that still elect through ConfigMaps;
 * prefer {@link Fabric8LeaseLock} otherwise.
 *
 * <p>Only that annotation is written, by a JSON merge patch with a resourceVersion precondition:
 * the ConfigMap's data, labels and other annotations are never lost. An existing ConfigMap without
 * the annotation counts as free. The identity needs a Role in the lock's namespace with {@code get,
 * list, watch, patch} on {@code configmaps} restricted to the lock's name, and {@code create} on
 * {@code configmaps}; see {@code deploy/configmap/rbac.yaml}. With {@code recordEvents(true)} it
 * also needs {@code create} on {@code events} ({@code deploy/configmap/rbac-events.yaml}). The
 * locks are thread-safe.
 */
public final class Fabric8ConfigMapLock {
  /** The annotation holding the record. */
  public static final String ANNOTATION = ConfigMapShape.ANNOTATION;

  private Fabric8ConfigMapLock() {}

  /**
   * Returns a builder of a lock in a ConfigMap, talking to the API server through {@code client}
   * (its credentials, TLS and HTTP client are the lock's; the lock never closes it, and fabric8's
   * own request retries are not used: the elector retries on its own schedule); {@code name} is
   * required.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static KubeLock.Builder newBuilder(KubernetesClient client) {
    return new LockBuilder<>(
        ObjectKind.CONFIG_MAP, Objects.requireNonNull(client, "client"), Fabric8Http::new);
  }
}
