package dev.elector.spring.autoconfigure;

import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import java.time.Duration;

/** The lock's part of the elector properties, the same for both Kubernetes clients. */
final class LockProperties {
  private LockProperties() {}

  /** Sets on {@code builder} the lock options of {@code properties}, and the resolved name. */
  static KubeLock.Builder apply(
      KubeLock.Builder builder,
      ElectorProperties properties,
      String name,
      PodEnvironment environment) {
    builder
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
