package dev.elector.examples.qosdk;

import dev.elector.Term;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renders a {@link Greeting} into the ConfigMap {@code NAME-greeting}, annotated with the replica
 * and the fencing token of the term that wrote it. The Quarkus Operator SDK finds it, makes it a
 * bean and generates the Greeting CRD at build time; {@link ElectedOperator} registers it with the
 * operator of each term and tells it the term first. It writes only while that term is active,
 * which turns false at the term's deadline even before the elector's thread has noticed.
 */
@Singleton
@ControllerConfiguration(name = "greeting")
public class GreetingReconciler implements Reconciler<Greeting> {
  /** The annotation naming the replica that wrote the ConfigMap. */
  public static final String RECONCILED_BY = "examples.elector.dev/reconciled-by";

  /** The annotation holding the fencing token of the term that wrote the ConfigMap. */
  public static final String TOKEN = "examples.elector.dev/fencing-token";

  private static final Logger log = LoggerFactory.getLogger(GreetingReconciler.class);

  private final String identity = System.getenv().getOrDefault("POD_NAME", "local");
  private volatile Term term;

  /** The term whose operator runs this reconciler from now on. */
  void serve(Term term) {
    this.term = term;
  }

  @Override
  public UpdateControl<Greeting> reconcile(Greeting greeting, Context<Greeting> context) {
    String name = greeting.getMetadata().getName();
    Term current = term;
    if (current == null || !current.isActive()) {
      log.info("no active term; {} is left to the leader", name);
      return UpdateControl.noUpdate();
    }
    ConfigMap map =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName(name + "-greeting")
            .withNamespace(greeting.getMetadata().getNamespace())
            .addToAnnotations(RECONCILED_BY, identity)
            .addToAnnotations(TOKEN, Long.toString(current.fencingToken()))
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(greeting.getApiVersion())
                    .withKind(greeting.getKind())
                    .withName(name)
                    .withUid(greeting.getMetadata().getUid())
                    .build())
            .endMetadata()
            .addToData("greeting", "Hello, " + greeting.getSpec().getName() + "!")
            .build();
    context
        .getClient()
        .configMaps()
        .inNamespace(greeting.getMetadata().getNamespace())
        .resource(map)
        .fieldManager("greeting-operator")
        .forceConflicts()
        .serverSideApply();
    log.info("wrote {}-greeting in term {}", name, current.fencingToken());
    return UpdateControl.noUpdate();
  }
}
