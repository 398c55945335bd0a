package dev.elector.fabric8;

import dev.elector.k8s.AbstractWatchModeIT;
import dev.elector.lock.LeaderLock;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.kubernetes.client.openapi.auth.ApiKeyAuth;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/** The default watch mode of the fabric8 Lease lock (see {@link AbstractWatchModeIT}). */
class Fabric8WatchModeIT extends AbstractWatchModeIT {

  @Override
  protected Connection connect(KubeCluster cluster, KubeIdentity who, List<String> seen) {
    String token = ((ApiKeyAuth) who.client().getAuthentication("BearerToken")).getApiKey();
    Interceptor recorder =
        new Interceptor() {
          @Override
          public void after(
              HttpRequest request,
              HttpResponse<?> response,
              AsyncBody.Consumer<List<ByteBuffer>> consumer) {
            String query = request.uri().getRawQuery();
            seen.add(
                request.method()
                    + " "
                    + request.uri().getRawPath()
                    + (query == null ? "" : "?" + query)
                    + " "
                    + response.code());
          }
        };
    KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(cluster.kubeconfigYaml(token)))
            .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("record", recorder))
            .build();
    return new Connection() {
      @Override
      public LeaderLock lock(
          String namespace, String name, String identity, Duration requestTimeout) {
        return Fabric8LeaseLock.newBuilder(client)
            .namespace(namespace)
            .name(name)
            .identity(identity)
            .requestTimeout(requestTimeout)
            .build();
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }
}
