package dev.elector.bench;

import dev.elector.testkit.internal.LocalControlPlane;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one API server every implementation runs against: the local control plane, an admin client
 * for each library, and the server's own request counters.
 */
final class Cluster implements AutoCloseable {
  private static final Pattern REQUEST_LINE =
      Pattern.compile("^apiserver_request_total\\{([^}]*)\\} ([0-9.eE+-]+)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private final LocalControlPlane plane;
  private final String kubeconfigYaml;
  private final Path kubeconfig;
  private final KubernetesClient fabric8;
  private final ApiClient admin;

  private Cluster(LocalControlPlane plane) throws IOException {
    this.plane = plane;
    this.kubeconfig = plane.kubeconfig();
    this.kubeconfigYaml = Files.readString(kubeconfig);
    this.admin = newApiClient();
    this.fabric8 =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfigYaml)).build();
  }

  /** Starts the local control plane binary. */
  static Cluster start(Path binary) throws IOException {
    LocalControlPlane plane = LocalControlPlane.start(binary, Duration.ofMinutes(3));
    try {
      return new Cluster(plane);
    } catch (IOException | RuntimeException e) {
      plane.close();
      throw e;
    }
  }

  /** The binary named by ELECTOR_APISERVER_BIN, else the one test.sh builds. */
  static Path defaultBinary() {
    String explicit = System.getenv("ELECTOR_APISERVER_BIN");
    if (explicit == null || explicit.isBlank()) {
      explicit = System.getProperty("ELECTOR_APISERVER_BIN");
    }
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit);
    }
    return Path.of(
        System.getProperty("user.home"), ".cache", "elector", "bin", "elector-apiserver");
  }

  String version() {
    return plane.version();
  }

  Path kubeconfig() {
    return kubeconfig;
  }

  /** A new client-java client with admin rights (its own connection pool). */
  ApiClient newApiClient() throws IOException {
    KubeConfig config = KubeConfig.loadKubeConfig(new StringReader(kubeconfigYaml));
    config.setFile(kubeconfig.toFile());
    ApiClient client = ClientBuilder.kubeconfig(config).build();
    client.setReadTimeout(0);
    return client;
  }

  ApiClient admin() {
    return admin;
  }

  KubernetesClient fabric8() {
    return fabric8;
  }

  /** Creates a namespace and returns its name. */
  String createNamespace(String name) throws ApiException {
    new CoreV1Api(admin)
        .createNamespace(
            new V1Namespace()
                .apiVersion("v1")
                .kind("Namespace")
                .metadata(new V1ObjectMeta().name(name)))
        .execute();
    return name;
  }

  /** The server's own request counters for one resource, summed by verb, from /metrics. */
  Map<String, Double> requestCounts(String resource) {
    String text = fabric8.raw("/metrics");
    Map<String, Double> byVerb = new HashMap<>();
    for (String line : text.split("\n")) {
      Matcher m = REQUEST_LINE.matcher(line.trim());
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      Matcher l = LABEL.matcher(m.group(1));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      if (resource.equals(labels.get("resource"))
          && "".equals(labels.getOrDefault("subresource", ""))) {
        byVerb.merge(labels.getOrDefault("verb", "?"), Double.parseDouble(m.group(2)), Double::sum);
      }
    }
    return byVerb;
  }

  @Override
  public void close() {
    try {
      fabric8.close();
    } finally {
      plane.close();
    }
  }
}
