package dev.elector.quarkus.deployment;

import dev.elector.testkit.internal.LocalControlPlane;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

/**
 * The real API server the extension's tests run against, one per test JVM: the local control plane
 * (ELECTOR_APISERVER_BIN, else ~/.cache/elector/bin/elector-apiserver), or the cluster of
 * ELECTOR_TEST_KUBECONFIG. QuarkusUnitTest loads each test class twice (once in its own class
 * loader), so what the cluster is travels in system properties: fabric8's {@code kubeconfig}, which
 * the Quarkus-managed client reads, and the namespace made for the run.
 */
final class TestCluster {
  private static final String NAMESPACE = "elector.quarkus.test.namespace";

  private TestCluster() {}

  /** A fresh namespace on the cluster, started on first use; the client reads its kubeconfig. */
  static synchronized String namespace() {
    String known = System.getProperty(NAMESPACE);
    if (known != null) {
      return known;
    }
    try {
      Path kubeconfig = kubeconfig();
      System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, kubeconfig.toString());
      String namespace = "elector-quarkus-" + UUID.randomUUID().toString().substring(0, 8);
      try (KubernetesClient admin = admin()) {
        admin
            .namespaces()
            .resource(
                new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
            .create();
      }
      System.setProperty(NAMESPACE, namespace);
      return namespace;
    } catch (Exception e) {
      throw new IllegalStateException("no API server for the tests: " + e, e);
    }
  }

  /** A client with the admin's rights, from the same kubeconfig; close it. */
  static KubernetesClient admin() throws Exception {
    String file = System.getProperty(Config.KUBERNETES_KUBECONFIG_FILE);
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(Path.of(file))))
        .build();
  }

  private static Path kubeconfig() throws Exception {
    String given = System.getenv("ELECTOR_TEST_KUBECONFIG");
    if (given != null && !given.isBlank()) {
      return Path.of(given.trim());
    }
    String binary = System.getenv("ELECTOR_APISERVER_BIN");
    Path path =
        binary != null && !binary.isBlank()
            ? Path.of(binary.trim())
            : Path.of(
                System.getProperty("user.home"), ".cache", "elector", "bin", "elector-apiserver");
    if (!Files.isExecutable(path)) {
      throw new IllegalStateException(
          "the local control plane "
              + path
              + " is not built; run bash testenv/build.sh, or set ELECTOR_TEST_KUBECONFIG");
    }
    // Stops with the JVM: its stdin is a pipe from this process.
    LocalControlPlane plane = LocalControlPlane.start(path, Duration.ofMinutes(3));
    return plane.kubeconfig();
  }

  /** A lock name of its own for each test class. */
  static String lockName(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 6).toLowerCase(Locale.ROOT);
  }
}
