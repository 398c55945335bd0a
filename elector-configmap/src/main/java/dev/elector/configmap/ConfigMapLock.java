package dev.elector.configmap;

import dev.elector.k8s.internal.KubeHttp;
import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.ConfigMapShape;
import dev.elector.kube.internal.LockBuilder;
import dev.elector.kube.internal.ObjectKind;
import io.kubernetes.client.openapi.ApiClient;
import java.util.Objects;

/**
 * Locks in a ConfigMap's annotation {@value #ANNOTATION} through client-java, holding the JSON
 * client-go's ConfigMapLock used ({@code holderIdentity, leaseDurationSeconds, acquireTime,
 * renewTime, leaderTransitions}). For clusters or tools that still elect through ConfigMaps; prefer
 * the Lease lock otherwise.
 *
 * <pre>{@code
 * KubeLock lock = ConfigMapLock.newBuilder(ClientBuilder.standard().build())
 *     .name("my-operator-leader")
 *     .build();
 * }</pre>
 *
 * <p>Only that annotation is written, by a JSON merge patch with a resourceVersion precondition:
 * the ConfigMap's data, labels and other annotations are never lost. An existing ConfigMap without
 * the annotation counts as free. The identity needs a Role in the lock's namespace with {@code get,
 * list, watch, patch} on {@code configmaps} restricted to the lock's name, and {@code create} on
 * {@code configmaps}; see {@code deploy/configmap/rbac.yaml}. With {@code recordEvents(true)} it
 * also needs {@code create} on {@code events} ({@code deploy/configmap/rbac-events.yaml}). The
 * locks are thread-safe.
 */
public final class ConfigMapLock {
  /** The annotation holding the record. */
  public static final String ANNOTATION = ConfigMapShape.ANNOTATION;

  private ConfigMapLock() {}

  /**
   * Returns a builder of a lock in a ConfigMap, talking to the API server through {@code
   * apiClient}; {@code name} is required.
   *
   * @throws NullPointerException if {@code apiClient} is null
   */
  public static KubeLock.Builder newBuilder(ApiClient apiClient) {
    return new LockBuilder<>(
        ObjectKind.CONFIG_MAP, Objects.requireNonNull(apiClient, "apiClient"), KubeHttp::new);
  }
}
