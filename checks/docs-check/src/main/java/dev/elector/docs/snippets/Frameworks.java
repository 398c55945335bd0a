package dev.elector.docs.snippets;

import dev.elector.Term;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.josdk.TermScopedOperator;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;

/** The snippets of the frameworks guide. */
final class Frameworks {
  private Frameworks() {}

  /** A reconciler that writes only while its term is active, and passes the fencing token on. */
  static final class MyReconciler implements Reconciler<ConfigMap> {
    private final Term term;

    MyReconciler(Term term) {
      this.term = term;
    }

    @Override
    public UpdateControl<ConfigMap> reconcile(ConfigMap resource, Context<ConfigMap> context) {
      if (!term.isActive()) {
        return UpdateControl.noUpdate();      // the term ended: write nothing
      }
      resource.getMetadata().getAnnotations()
          .put("example.dev/fencing-token", Long.toString(term.fencingToken()));
      return UpdateControl.patchResource(resource);
    }
  }

  static TermScopedOperator josdk() {
    // tag::josdk[]
    KubernetesClient client = new KubernetesClientBuilder().build();
    TermScopedOperator operator = TermScopedOperator.newBuilder()
        .client(client)
        .lock(Fabric8LeaseLock.newBuilder(client).name("my-operator").build())
        .electorConfig(config -> config.leaseDuration(Duration.ofSeconds(15)))
        .reconcilers((op, term) -> op.register(new MyReconciler(term)))   // a fresh Operator a term
        .start();
    Runtime.getRuntime().addShutdownHook(new Thread(operator::close));
    // end::josdk[]
    return operator;
  }
}
