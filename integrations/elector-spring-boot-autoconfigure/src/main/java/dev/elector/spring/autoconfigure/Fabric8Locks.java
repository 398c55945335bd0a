package dev.elector.spring.autoconfigure;

import dev.elector.fabric8.Fabric8ConfigMapLock;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.LockKind;
import dev.elector.kube.PodEnvironment;
import io.fabric8.kubernetes.client.KubernetesClient;
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
    if (properties.getLockKind() == LockKind.CONFIG_MAP) {
      return LockProperties.apply(
              Fabric8ConfigMapLock.newBuilder(client), properties, name, environment)
          .build();
    }
    return LockProperties.apply(Fabric8LeaseLock.newBuilder(client), properties, name, environment)
        .build();
  }
}
