package dev.elector.spring.autoconfigure;

import dev.elector.fabric8.Fabric8ConfigMapLock;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.fabric8.Fabric8LockBuilder;
import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.springframework.beans.factory.ListableBeanFactory;

/** The fabric8 locks; loaded only when fabric8 and elector-fabric8 are present. */
final class Fabric8Locks {
  private Fabric8Locks() {}

  static KubeLock build(
      ElectorProperties properties,
      String name,
      PodEnvironment environment,
      ListableBeanFactory beans) {
    KubernetesClient client = beans.getBeanProvider(KubernetesClient.class).getObject();
    if (properties.getLockKind() == ElectorProperties.LockKind.CONFIG_MAP) {
      return options(Fabric8ConfigMapLock.newBuilder(), properties, name, environment, client)
          .build();
    }
    return options(Fabric8LeaseLock.newBuilder(), properties, name, environment, client).build();
  }

  private static <B extends Fabric8LockBuilder<B>> B options(
      B builder,
      ElectorProperties properties,
      String name,
      PodEnvironment environment,
      KubernetesClient client) {
    builder
        .client(client)
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
