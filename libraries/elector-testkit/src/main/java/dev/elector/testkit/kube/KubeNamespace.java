package dev.elector.testkit.kube;

import java.util.Objects;

/** A namespace created for a test. */
public record KubeNamespace(String name) {
  /** Checks that the name is given. */
  public KubeNamespace {
    Objects.requireNonNull(name, "name");
  }

  @Override
  public String toString() {
    return name;
  }
}
