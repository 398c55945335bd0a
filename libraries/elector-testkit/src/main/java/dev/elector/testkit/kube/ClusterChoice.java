package dev.elector.testkit.kube;

import dev.elector.testkit.internal.LocalControlPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Picks the cluster for this JVM: an explicit kubeconfig ({@code ELECTOR_TEST_KUBECONFIG}), else
 * the local control plane binary ({@code ELECTOR_APISERVER_BIN}, default {@code
 * ~/.cache/elector/bin/elector-apiserver}), else k3s in Testcontainers when Docker runs.
 */
final class ClusterChoice {
  static final String KUBECONFIG = "ELECTOR_TEST_KUBECONFIG";
  static final String BINARY = "ELECTOR_APISERVER_BIN";
  static final String SKIP = "ELECTOR_SKIP_CLUSTER_TESTS";

  private final Function<String, String> env;

  ClusterChoice(Function<String, String> env) {
    this.env = env;
  }

  static ClusterChoice fromEnvironment() {
    return new ClusterChoice(
        name -> {
          String value = System.getenv(name);
          return value != null ? value : System.getProperty(name);
        });
  }

  boolean skipRequested() {
    return "true".equalsIgnoreCase(trimmed(SKIP));
  }

  Path binary() {
    String explicit = trimmed(BINARY);
    if (explicit != null) {
      return Path.of(explicit);
    }
    String home = env.apply("HOME");
    return Path.of(
        home != null ? home : System.getProperty("user.home"),
        ".cache",
        "elector",
        "bin",
        "elector-apiserver");
  }

  /** Starts or connects to the cluster; throws with the remedy when there is none. */
  KubeCluster obtain() throws Exception {
    String kubeconfig = trimmed(KUBECONFIG);
    if (kubeconfig != null) {
      Path file = Path.of(kubeconfig);
      if (!Files.isReadable(file)) {
        throw new IllegalStateException(
            KUBECONFIG
                + " is set to "
                + file
                + ", which cannot be"
                + " read; point it at the kubeconfig of a disposable test cluster or unset it");
      }
      return KubeCluster.fromKubeconfig("cluster of kubeconfig " + file, file, null);
    }
    Path binary = binary();
    if (Files.isExecutable(binary)) {
      LocalControlPlane plane = LocalControlPlane.start(binary, Duration.ofMinutes(3));
      try {
        return KubeCluster.ofLocalControlPlane(
            "local control plane " + plane.version() + " at " + plane.server(), plane);
      } catch (Exception e) {
        plane.close();
        throw e;
      }
    }
    if (trimmed(BINARY) != null) {
      throw new IllegalStateException(
          BINARY
              + " is set to "
              + binary
              + ", which is not an"
              + " executable file; build it with `bash testenv/build.sh` or unset "
              + BINARY);
    }
    if (K3sCluster.dockerAvailable()) {
      return K3sCluster.start(trimmed("ELECTOR_K3S_IMAGE"));
    }
    throw new IllegalStateException(noClusterMessage(binary));
  }

  static String noClusterMessage(Path binary) {
    return "No Kubernetes API server for these tests. Get one in any of these ways:"
        + " (1) build the local control plane once with `bash testenv/build.sh` (it is then found"
        + " at "
        + binary
        + ", or set "
        + BINARY
        + " to its path);"
        + " (2) set "
        + KUBECONFIG
        + " to the kubeconfig of a disposable test cluster;"
        + " (3) start a Docker engine, so k3s (rancher/k3s) runs in Testcontainers."
        + " To skip these tests deliberately, set "
        + SKIP
        + "=true.";
  }

  private @Nullable String trimmed(String name) {
    String value = env.apply(name);
    return value == null || value.isBlank() ? null : value.trim();
  }
}
