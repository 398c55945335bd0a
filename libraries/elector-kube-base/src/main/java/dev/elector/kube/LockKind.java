package dev.elector.kube;

/**
 * The kind of Kubernetes object that holds a lock: the value of the Spring Boot and Quarkus
 * integrations' {@code lock-kind} setting, spelled {@code lease} or {@code configmap} in both
 * ({@code config-map} is accepted too).
 */
public enum LockKind {
  /** A {@code coordination.k8s.io/v1} Lease, as client-go's elector uses by default. */
  LEASE,
  /** A ConfigMap with client-go's leader annotation, for clusters or tools that expect it. */
  CONFIG_MAP
}
