package dev.elector.examples.josdk;

import dev.elector.Term;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renders a {@link Greeting} into the ConfigMap {@code NAME-greeting}, annotated with the replica
 * and the fencing token of the term that wrote it. One reconciler per term: it writes only while
 * {@code term.isActive()}, which turns false at the term's deadline even before the elector's
 * thread has noticed, so a reconcile that JOSDK had already started when the term ended writes
 * nothing.
 */
@ControllerConfiguration(name = "greeting")
public final class GreetingReconciler implements Reconciler<Greeting> {
  /** The annotation naming the replica that wrote the ConfigMap. */
  public static final String RECONCILED_BY = "examples.elector.dev/reconciled-by";

  /** The annotation holding the fencing token of the term that wrote the ConfigMap. */
  public static final String TOKEN = "examples.elector.dev/fencing-token";

  private static final Logger log = LoggerFactory.getLogger(GreetingReconciler.class);

  private final String identity;
  private final Term term;

  GreetingReconciler(String identity, Term term) {
    this.identity = identity;
    this.term = term;
  }

  @Override
  public UpdateControl<Greeting> reconcile(Greeting greeting, Context<Greeting> context) {
    String name = greeting.getMetadata().getName();
    if (!term.isActive()) {
      log.info("term {} has ended; {} is left to the next leader", term.fencingToken(), name);
      return UpdateControl.noUpdate();
    }
    ConfigMap map =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName(name + "-greeting")
            .withNamespace(greeting.getMetadata().getNamespace())
            .addToAnnotations(RECONCILED_BY, identity)
            .addToAnnotations(TOKEN, Long.toString(term.fencingToken()))
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
    log.info("wrote {}-greeting in term {}", name, term.fencingToken());
    return UpdateControl.noUpdate();
  }
}
