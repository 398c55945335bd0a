package dev.elector.fabric8;

import dev.elector.kube.ForwardingKubeLock;
import dev.elector.kube.ObjectKind;
import dev.elector.kube.internal.ObjectLock;

/**
 * A lock in a {@code coordination.k8s.io/v1} Lease through fabric8's {@code KubernetesClient},
 * compatible with client-go's LeaseLock and with Elector's client-java {@code LeaseLock}: Go,
 * client-java and fabric8 candidates can share one Lease.
 *
 * <pre>{@code
 * KubernetesClient client = new KubernetesClientBuilder().build();
 * Fabric8LeaseLock lock = Fabric8LeaseLock.newBuilder()
 *     .client(client)
 *     .name("my-operator-leader")        // namespace from POD_NAMESPACE, identity from POD_NAME
 *     .build();
 * }</pre>
 *
 * <p>Reads GET the Lease; a renewal is one JSON merge patch of the spec with {@code
 * metadata.resourceVersion} as precondition. The identity needs a Role in the lock's namespace with
 * {@code get, list, watch, patch} on {@code leases} restricted to the lock's name, and {@code
 * create} on {@code leases}; see {@code deploy/lease/rbac.yaml}. With {@code recordEvents(true)} it
 * also needs {@code create} on {@code events} ({@code deploy/lease/rbac-events.yaml}). Thread-safe.
 */
public final class Fabric8LeaseLock extends ForwardingKubeLock {

  private Fabric8LeaseLock(Builder builder) {
    super(new ObjectLock(builder.resolve(ObjectKind.LEASE)));
  }

  /** Returns a builder; {@code client} and {@code name} are required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** Builds a {@link Fabric8LeaseLock}. */
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
    public Fabric8LeaseLock build() {
      return new Fabric8LeaseLock(this);
    }
  }
}
