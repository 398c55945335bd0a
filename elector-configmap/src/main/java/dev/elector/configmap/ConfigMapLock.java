package dev.elector.configmap;

import dev.elector.k8s.KubeLockBuilder;
import dev.elector.k8s.KubeObjectLock;
import dev.elector.kube.ObjectKind;
import dev.elector.kube.internal.ConfigMapShape;

/**
 * A lock in a ConfigMap's annotation {@value #ANNOTATION}, holding the JSON client-go's
 * ConfigMapLock used ({@code holderIdentity, leaseDurationSeconds, acquireTime, renewTime,
 * leaderTransitions}). For clusters or tools that still elect through ConfigMaps; prefer the Lease
 * lock otherwise.
 *
 * <p>Only that annotation is written, by a JSON merge patch with a resourceVersion precondition:
 * the ConfigMap's data, labels and other annotations are never lost. An existing ConfigMap without
 * the annotation counts as free. The identity needs a Role in the lock's namespace with {@code get,
 * list, watch, patch} on {@code configmaps} restricted to the lock's name, and {@code create} on
 * {@code configmaps}; see {@code deploy/configmap/rbac.yaml}. With {@code recordEvents(true)} it
 * also needs {@code create} on {@code events} ({@code deploy/configmap/rbac-events.yaml}).
 * Thread-safe.
 */
public final class ConfigMapLock extends KubeObjectLock {
  /** The annotation holding the record. */
  public static final String ANNOTATION = ConfigMapShape.ANNOTATION;

  private ConfigMapLock(Builder builder) {
    super(builder, ObjectKind.CONFIG_MAP);
  }

  /** Returns a builder; {@code apiClient} and {@code name} are required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** Builds a {@link ConfigMapLock}. */
  public static final class Builder extends KubeLockBuilder<Builder> {
    private Builder() {}

    @Override
    protected Builder self() {
      return this;
    }

    /**
     * Resolves namespace and identity and builds the lock.
     *
     * @throws IllegalStateException listing every missing or invalid option
     */
    public ConfigMapLock build() {
      return new ConfigMapLock(this);
    }
  }
}
