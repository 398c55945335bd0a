package dev.elector.checks.install;

import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.josdk.TermScopedOperator;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Compiles against elector-josdk as installed: an operator per term, built but never started. */
public final class JosdkConsumer {
  private JosdkConsumer() {}

  /** An operator on the given client with no reconcilers. */
  public static TermScopedOperator operator(KubernetesClient client) {
    return TermScopedOperator.newBuilder()
        .client(client)
        .lock(Fabric8LeaseLock.newBuilder(client).name("install-paths").build())
        .reconcilers((operator, term) -> {})
        .build();
  }
}
