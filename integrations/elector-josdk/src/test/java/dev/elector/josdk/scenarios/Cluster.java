package dev.elector.josdk.scenarios;

import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The admin's fabric8 client on the test cluster, with the Greeting CRD installed. */
final class Cluster implements AutoCloseable {
  static final Path CRD = Path.of("src", "test", "resources", "greeting-crd.yaml");
  static final Path RBAC = Path.of("src", "test", "resources", "greeting-rbac.yaml");

  final KubernetesClient admin;

  Cluster(KubeCluster cluster) throws Exception {
    admin =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(cluster.adminKubeconfigYaml()))
            .build();
    try (InputStream in = Files.newInputStream(CRD)) {
      admin.apiextensions().v1().customResourceDefinitions().load(in).serverSideApply();
    }
    Await.until(
        "the Greeting CRD is established",
        Duration.ofSeconds(30),
        () -> {
          CustomResourceDefinition crd =
              admin
                  .apiextensions()
                  .v1()
                  .customResourceDefinitions()
                  .withName("greetings.examples.elector.dev")
                  .get();
          return crd.getStatus() != null
              && crd.getStatus().getConditions().stream()
                  .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True"));
        });
  }

  void create(String namespace, String name, long resyncMillis) {
    admin
        .resources(Greeting.class)
        .inNamespace(namespace)
        .resource(Greeting.of(namespace, name, name, resyncMillis))
        .create();
  }

  /**
   * Creates {@code count} Greetings named {@code prefix} followed by 0, 1, ..., with no resync,
   * eight requests at a time.
   */
  void createMany(String namespace, String prefix, int count) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> created = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String name = prefix + i;
        created.add(pool.submit(() -> create(namespace, name, 0)));
      }
      for (Future<?> f : created) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("creating " + count + " Greetings failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Who wrote the greeting's ConfigMap, if it exists yet. */
  Optional<String> writer(String namespace, String greeting) {
    ConfigMap map =
        admin.configMaps().inNamespace(namespace).withName(greeting + "-greeting").get();
    return Optional.ofNullable(map)
        .map(m -> m.getMetadata().getAnnotations().get(GreetingReconciler.RECONCILED_BY));
  }

  @Override
  public void close() {
    admin.close();
  }
}
