package dev.elector.fabric8;

import dev.elector.kube.ForwardingKubeLock;
import dev.elector.kube.ObjectKind;
import dev.elector.kube.internal.ConfigMapShape;
import dev.elector.kube.internal.ObjectLock;

/**
 * A lock in a ConfigMap's annotation {@value #ANNOTATION} through fabric8's {@code
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
 * also needs {@code create} on {@code events} ({@code deploy/configmap/rbac-events.yaml}).
 * Thread-safe.
 */
public final class Fabric8ConfigMapLock extends ForwardingKubeLock {
  /** The annotation holding the record. */
  public static final String ANNOTATION = ConfigMapShape.ANNOTATION;

  private Fabric8ConfigMapLock(Builder builder) {
    super(new ObjectLock(builder.resolve(ObjectKind.CONFIG_MAP)));
  }

  /** Returns a builder; {@code client} and {@code name} are required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** Builds a {@link Fabric8ConfigMapLock}. */
  public static final class Builder extends Fabric8LockBuilder<Builder> {
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
    public Fabric8ConfigMapLock build() {
      return new Fabric8ConfigMapLock(this);
    }
  }
}
