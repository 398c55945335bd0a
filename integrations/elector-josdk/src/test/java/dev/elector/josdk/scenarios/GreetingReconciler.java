package dev.elector.josdk.scenarios;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Renders a {@link Greeting} into the ConfigMap {@code NAME-greeting}, annotated with the replica
 * and the fencing token that wrote it. The write happens only if {@code leading} still holds right
 * before it: with Elector that is {@code term.isActive()}, which turns false at the term's deadline
 * even before the elector's thread has noticed, so a reconcile that JOSDK had already started when
 * the term ended writes nothing.
 */
@ControllerConfiguration(name = GreetingReconciler.NAME)
public final class GreetingReconciler implements Reconciler<Greeting> {
  static final String NAME = "greeting";

  /** The annotation naming the replica that wrote the ConfigMap. */
  public static final String RECONCILED_BY = "examples.elector.dev/reconciled-by";

  /** The annotation holding the fencing token of the term that wrote the ConfigMap. */
  public static final String TOKEN = "examples.elector.dev/fencing-token";

  private final String identity;
  private final BooleanSupplier leading;
  private final LongSupplier token;
  private final Events events;

  GreetingReconciler(String identity, BooleanSupplier leading, LongSupplier token, Events events) {
    this.identity = identity;
    this.leading = leading;
    this.token = token;
    this.events = events;
  }

  @Override
  public UpdateControl<Greeting> reconcile(Greeting greeting, Context<Greeting> context) {
    String name = greeting.getMetadata().getName();
    long checked = events.now();
    if (!leading.getAsBoolean()) {
      events.printAt(checked, "SKIPPED", "object", name);
      return UpdateControl.noUpdate();
    }
    ConfigMap map =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName(name + "-greeting")
            .withNamespace(greeting.getMetadata().getNamespace())
            .addToAnnotations(RECONCILED_BY, identity)
            .addToAnnotations(TOKEN, Long.toString(token.getAsLong()))
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
    events.print("RECONCILED", "object", name, "checked", checked, "token", token.getAsLong());
    long resync = greeting.getSpec().getResyncMillis();
    return resync > 0
        ? UpdateControl.<Greeting>noUpdate().rescheduleAfter(Duration.ofMillis(resync))
        : UpdateControl.noUpdate();
  }
}
