package dev.elector.bench;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a JMH benchmark (possibly in a forked JVM) needs to reach the API server. */
final class BenchSetup {
  static final String KUBECONFIG = "elector.bench.kubeconfig";
  static final String NAMESPACE = "elector.bench.namespace";

  private BenchSetup() {}

  static String namespace() {
    return require(NAMESPACE);
  }

  static ApiClient apiClient() throws IOException {
    Path file = Path.of(require(KUBECONFIG));
    KubeConfig config = KubeConfig.loadKubeConfig(new StringReader(Files.readString(file)));
    config.setFile(file.toFile());
    ApiClient client = ClientBuilder.kubeconfig(config).build();
    client.setReadTimeout(0);
    return client;
  }

  static KubernetesClient fabric8() throws IOException {
    Path file = Path.of(require(KUBECONFIG));
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(file)))
        .build();
  }

  private static String require(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "system property "
              + property
              + " is not set; run the"
              + " benchmarks through dev.elector.bench.BenchMain (benchmarks/run.sh)");
    }
    return value;
  }
}
