package dev.elector.kube.internal;

/** The kind of Kubernetes object a {@link dev.elector.kube.KubeLock} keeps its record in. */
public enum ObjectKind {
  /** A {@code coordination.k8s.io/v1} Lease: the record is its spec. */
  LEASE("Lease"),
  /** A {@code v1} ConfigMap: the record is JSON in one annotation, as client-go wrote it. */
  CONFIG_MAP("ConfigMap");

  private final String kind;

  ObjectKind(String kind) {
    this.kind = kind;
  }

  /** The object's {@code kind} as the API server spells it, such as {@code Lease}. */
  public String kind() {
    return kind;
  }
}
