package dev.elector.spring.autoconfigure;

import dev.elector.configmap.ConfigMapLock;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.LockKind;
import dev.elector.kube.PodEnvironment;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.beans.factory.ListableBeanFactory;

/** The client-java locks; loaded only when client-java and elector-k8s-lease are present. */
final class ClientJavaLocks {
  private ClientJavaLocks() {}

  static KubeLock build(
      ElectorProperties properties,
      String name,
      PodEnvironment environment,
      ListableBeanFactory beans) {
    ApiClient bean = beans.getBeanProvider(ApiClient.class).getIfUnique();
    ApiClient client = bean != null ? bean : defaultClient();
    if (properties.getLockKind() == LockKind.CONFIG_MAP) {
      return LockProperties.apply(ConfigMapLock.newBuilder(client), properties, name, environment)
          .build();
    }
    return LockProperties.apply(LeaseLock.newBuilder(client), properties, name, environment)
        .build();
  }

  private static ApiClient defaultClient() {
    try {
      return ClientBuilder.standard().build();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "the application has no ApiClient bean and the standard client (in-cluster, else"
              + " $KUBECONFIG or ~/.kube/config) cannot be made ("
              + e.getMessage()
              + "); fix that configuration or define an ApiClient bean",
          e);
    }
  }
}
