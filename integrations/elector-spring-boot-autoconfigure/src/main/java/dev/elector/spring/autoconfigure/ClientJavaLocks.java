package dev.elector.spring.autoconfigure;

import dev.elector.configmap.ConfigMapLock;
import dev.elector.k8s.KubeLockBuilder;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
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
    if (properties.getLockKind() == ElectorProperties.LockKind.CONFIG_MAP) {
      return options(ConfigMapLock.newBuilder(), properties, name, environment, client).build();
    }
    return options(LeaseLock.newBuilder(), properties, name, environment, client).build();
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

  private static <B extends KubeLockBuilder<B>> B options(
      B builder,
      ElectorProperties properties,
      String name,
      PodEnvironment environment,
      ApiClient client) {
    builder
        .apiClient(client)
        .environment(environment)
        .name(name)
        .watchMode(properties.getWatchMode())
        .recordEvents(properties.isRecordEvents());
    String namespace = properties.getNamespace();
    if (namespace != null) {
      builder.namespace(namespace);
    }
    String identity = properties.getIdentity();
    if (identity != null) {
      builder.identity(identity);
    }
    Duration requestTimeout = properties.getRequestTimeout();
    if (requestTimeout != null) {
      builder.requestTimeout(requestTimeout);
    }
    String eventComponent = properties.getEventComponent();
    if (eventComponent != null) {
      builder.eventComponent(eventComponent);
    }
    return builder;
  }
}
