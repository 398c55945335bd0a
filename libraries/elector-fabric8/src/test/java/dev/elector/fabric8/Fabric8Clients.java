package dev.elector.fabric8;

import dev.elector.testkit.kube.KubeCluster;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.auth.ApiKeyAuth;
import io.kubernetes.client.openapi.auth.Authentication;
import java.util.IdentityHashMap;

/**
 * fabric8 clients with the same credentials as the suite's client-java clients: the admin's
 * kubeconfig for the admin, the bearer token for a restricted identity. Closed together.
 */
final class Fabric8Clients implements AutoCloseable {
  private final IdentityHashMap<ApiClient, KubernetesClient> clients = new IdentityHashMap<>();

  /** The fabric8 client acting as {@code client} on {@code cluster}. */
  synchronized KubernetesClient of(KubeCluster cluster, ApiClient client) {
    return clients.computeIfAbsent(client, c -> build(cluster, c));
  }

  private static KubernetesClient build(KubeCluster cluster, ApiClient client) {
    String yaml =
        client == cluster.admin()
            ? cluster.adminKubeconfigYaml()
            : cluster.kubeconfigYaml(token(client));
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(yaml)).build();
  }

  private static String token(ApiClient client) {
    Authentication auth = client.getAuthentication("BearerToken");
    if (auth instanceof ApiKeyAuth key && key.getApiKey() != null) {
      return key.getApiKey();
    }
    throw new IllegalArgumentException("the client has no bearer token to hand to fabric8");
  }

  @Override
  public synchronized void close() {
    clients.values().forEach(KubernetesClient::close);
    clients.clear();
  }
}
