package dev.elector.k8s;

import dev.elector.kube.ObjectKind;

/**
 * A lock in a {@code coordination.k8s.io/v1} Lease, compatible with client-go's LeaseLock: Go and
 * Java candidates can share one Lease.
 *
 * <pre>{@code
 * LeaseLock lock = LeaseLock.newBuilder()
 *     .apiClient(ClientBuilder.standard().build())
 *     .name("my-operator-leader")        // namespace from POD_NAMESPACE, identity from POD_NAME
 *     .build();
 * }</pre>
 *
 * <p>The identity needs a Role in the lock's namespace with {@code get, list, watch, patch} on
 * {@code leases} restricted to the lock's name, and {@code create} on {@code leases} (which
 * Kubernetes cannot restrict by name); see {@code deploy/lease/rbac.yaml}. With {@link
 * KubeLockBuilder#recordEvents recordEvents(true)} it also needs {@code create} on {@code events}
 * ({@code deploy/lease/rbac-events.yaml}). Thread-safe.
 */
public final class LeaseLock extends KubeObjectLock {

  private LeaseLock(Builder builder) {
    super(builder, ObjectKind.LEASE);
  }

  /** Returns a builder; {@code apiClient} and {@code name} are required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** Builds a {@link LeaseLock}. */
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
    public LeaseLock build() {
      return new LeaseLock(this);
    }
  }
}
