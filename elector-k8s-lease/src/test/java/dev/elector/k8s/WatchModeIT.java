package dev.elector.k8s;

import dev.elector.lock.LeaderLock;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.List;

/** The default watch mode of the client-java Lease lock (see {@link AbstractWatchModeIT}). */
class WatchModeIT extends AbstractWatchModeIT {

  @Override
  protected Connection connect(KubeCluster cluster, KubeIdentity who, List<String> seen) {
    ApiClient client = who.client();
    client.setHttpClient(
        client
            .getHttpClient()
            .newBuilder()
            .addInterceptor(
                chain -> {
                  okhttp3.Request request = chain.request();
                  okhttp3.Response response = chain.proceed(request);
                  String query = request.url().encodedQuery();
                  seen.add(
                      request.method()
                          + " "
                          + request.url().encodedPath()
                          + (query == null ? "" : "?" + query)
                          + " "
                          + response.code());
                  return response;
                })
            .build());
    return new Connection() {
      @Override
      public LeaderLock lock(
          String namespace, String name, String identity, Duration requestTimeout) {
        return LeaseLock.newBuilder(client)
            .namespace(namespace)
            .name(name)
            .identity(identity)
            .requestTimeout(requestTimeout)
            .build();
      }

      @Override
      public void close() {}
    };
  }
}
