package dev.elector.examples.josdk7;

import dev.elector.kube.KubeLock;
import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.fabric8.Fabric8LeaseLock;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Version;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java Operator SDK 5.2 operator on the fabric8 client that JOSDK brings (7.x, Jackson 2),
 * leader-elected with elector-fabric8 on that same client. Every replica is a candidate for the
 * Lease "elector-leader" in its namespace (POD_NAMESPACE); the leader starts a JOSDK operator for
 * its term, whose reconciler watches the namespace's ConfigMaps, and writes one ConfigMap for the
 * term. The end of the term stops the operator; SIGTERM closes the elector, which releases the
 * Lease.
 */
public final class OperatorOnFabric8Seven {
  private static final Logger log = LoggerFactory.getLogger(OperatorOnFabric8Seven.class);

  private OperatorOnFabric8Seven() {}

  public static void main(String[] args) throws Exception {
    // The client as JOSDK's users build it: the pod's ServiceAccount, or KUBECONFIG outside a pod.
    KubernetesClient client = new KubernetesClientBuilder().build();
    log.info(
        "fabric8 kubernetes-client {} with Jackson {}",
        Version.clientVersion(),
        com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
    String namespace =
        Objects.requireNonNull(System.getenv("POD_NAMESPACE"), "POD_NAMESPACE must be set");

    KubeLock lock =
        Fabric8LeaseLock.newBuilder(client) // the operator's own client; the lock never closes it
            .name("elector-leader") // namespace: POD_NAMESPACE; identity: POD_NAME plus a suffix
            .build();
    LeaderElector elector =
        LeaderElector.create(
            ElectorConfig.newBuilder()
                .lock(lock)
                .callbacks(new TermOperator(client, namespace))
                .build());

    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  elector.close(); // ends the term (the operator stops), then releases the Lease
                  client.close();
                  log.info("{} closed", elector.identity());
                  closed.countDown();
                },
                "operator-shutdown"));
    elector.start();
    log.info("{} is a candidate for {}", elector.identity(), elector.describe());
    closed.await();
  }

  /** A fresh JOSDK operator for each term, on the shared client; JOSDK's own election stays off. */
  static final class TermOperator implements LeaderCallbacks {
    private final KubernetesClient client;
    private final String namespace;
    private volatile Operator operator; // set and cleared by the callbacks, one at a time

    TermOperator(KubernetesClient client, String namespace) {
      this.client = client;
      this.namespace = namespace;
    }

    @Override
    public void onStartedLeading(Term term) {
      log.info("{} started leading (fencing token {})", term.identity(), term.fencingToken());
      Operator next =
          new Operator(
              o ->
                  o.withKubernetesClient(client)
                      .withCloseClientOnStop(false) // the lock and the next term use it too
                      .withStopOnInformerErrorDuringStartup(false));
      next.register(new ConfigMapReconciler(term), c -> c.settingNamespace(namespace));
      operator = next;
      next.start();
      log.info("{} started the operator for term {}", term.identity(), term.fencingToken());
      if (term.isActive()) {
        ConfigMap map =
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("term-" + term.fencingToken())
                .withNamespace(namespace)
                .endMetadata()
                .addToData("leader", term.identity())
                .build();
        client.configMaps().inNamespace(namespace).resource(map).create();
      }
    }

    @Override
    public void onStoppedLeading(Term term, TermEnd reason) {
      Operator current = operator;
      operator = null;
      if (current != null) {
        current.stop();
      }
      log.info("{} stopped leading: {}", term.identity(), reason);
    }

    @Override
    public void onNewLeader(String identity) {
      log.info("the leader is now {}", identity);
    }
  }

  /** Logs each ConfigMap of the namespace that it reconciles, while its term is active. */
  @ControllerConfiguration(name = "configmaps")
  static final class ConfigMapReconciler implements Reconciler<ConfigMap> {
    private final Term term;

    ConfigMapReconciler(Term term) {
      this.term = term;
    }

    @Override
    public UpdateControl<ConfigMap> reconcile(ConfigMap map, Context<ConfigMap> context) {
      if (term.isActive()) {
        log.info(
            "reconciled ConfigMap {} (term {})", map.getMetadata().getName(), term.fencingToken());
      }
      return UpdateControl.noUpdate();
    }
  }
}
