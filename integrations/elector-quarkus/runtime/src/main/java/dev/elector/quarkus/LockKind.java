package dev.elector.quarkus;

/**
 * The kind of Kubernetes object that holds the lock ({@code quarkus.elector.lock-kind}): {@code
 * lease} or {@code configmap} ({@code config-map} is accepted too).
 */
public enum LockKind {
  /** A {@code coordination.k8s.io/v1} Lease, as client-go's elector uses by default. */
  LEASE,
  /** A ConfigMap, for clusters or tools that expect client-go's ConfigMap lock. */
  CONFIGMAP
}
