package dev.elector.spring.autoconfigure;

import dev.elector.ElectorConfig;
import dev.elector.ElectorConfigException;
import dev.elector.LeaderCallbacks;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.spring.autoconfigure.ElectorProperties.Backend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the {@code elector.*} properties, all at once. The timing rules are the core's
 * ({@link ElectorConfig.Builder#build()}): its messages are kept, with its option names replaced by
 * the property names.
 */
final class ElectorSettings {
  static final String CLIENT_JAVA_LEASE = "dev.elector.k8s.LeaseLock";
  static final String CLIENT_JAVA_CONFIG_MAP = "dev.elector.configmap.ConfigMapLock";
  static final String CLIENT_JAVA_CLIENT = "io.kubernetes.client.openapi.ApiClient";
  static final String FABRIC8_LOCK = "dev.elector.fabric8.Fabric8LeaseLock";
  static final String FABRIC8_CLIENT = "io.fabric8.kubernetes.client.KubernetesClient";

  private static final Map<String, String> PROPERTY_OF =
      Map.of(
          "leaseDuration", "elector.lease-duration",
          "renewDeadline", "elector.renew-deadline",
          "retryPeriod", "elector.retry-period",
          "closeTimeout", "elector.close-timeout");
  private static final Pattern OPTION =
      Pattern.compile("\\b(" + String.join("|", PROPERTY_OF.keySet()) + ")\\b");

  /** What the class path and the application's beans offer. */
  record Classpath(
      boolean clientJava,
      boolean clientJavaConfigMap,
      boolean fabric8,
      int apiClientBeans,
      int kubernetesClientBeans) {}

  /**
   * The outcome of the checks: the backend to use and the lock's name, or the problems found (the
   * name is null only then).
   */
  record Resolved(
      Backend backend, @Nullable String name, List<String> problems, boolean lockBuildable) {}

  private ElectorSettings() {}

  /**
   * Checks {@code properties} and the class path together.
   *
   * @param applicationName spring.application.name, the default lock name
   */
  static Resolved check(
      ElectorProperties properties,
      @Nullable String applicationName,
      PodEnvironment environment,
      Classpath classpath) {
    List<String> problems = new ArrayList<>();
    Backend backend = backend(properties, classpath, problems);
    boolean lockBuildable = problems.isEmpty() && backend != Backend.AUTO;
    String name = properties.getName();
    if (name == null) {
      name = applicationName;
    }
    if (name == null || name.isBlank()) {
      lockBuildable = false;
      problems.add(
          "elector.name is not set and spring.application.name is empty; set elector.name to the"
              + " name of the lock all replicas share, such as my-app");
    }
    if (properties.getNamespace() != null && properties.getNamespace().isBlank()) {
      lockBuildable = false;
      problems.add(
          "elector.namespace is blank; set it to the lock's namespace, or remove it to use the"
              + " pod's own");
    } else if (properties.getNamespace() == null && environment.namespace().isEmpty()) {
      lockBuildable = false;
      problems.add(
          "elector.namespace is not set and this process does not run in a pod (no POD_NAMESPACE"
              + " variable, no "
              + PodEnvironment.NAMESPACE_FILE
              + "); set elector.namespace, or POD_NAMESPACE from the Downward API");
    }
    if (properties.getIdentity() != null && properties.getIdentity().isBlank()) {
      lockBuildable = false;
      problems.add(
          "elector.identity is blank; set a unique identity per replica, or remove it to use"
              + " POD_NAME with a random suffix");
    }
    problems.addAll(timingProblems(properties));
    return new Resolved(
        backend, name == null || name.isBlank() ? null : name, problems, lockBuildable);
  }

  private static Backend backend(
      ElectorProperties properties, Classpath classpath, List<String> problems) {
    Backend requested = properties.getBackend();
    boolean clientJava = classpath.clientJava();
    boolean fabric8 = classpath.fabric8();
    Backend backend = requested;
    if (requested == Backend.AUTO) {
      if (clientJava && fabric8) {
        problems.add(
            "elector.backend is auto but both backends are on the class path (elector-k8s-lease"
                + " with client-java, and elector-fabric8 with fabric8); set elector.backend to"
                + " client-java or fabric8");
        return Backend.AUTO;
      }
      if (!clientJava && !fabric8) {
        problems.add(
            "no Kubernetes backend for Elector on the class path; add"
                + " dev.elector:elector-spring-boot-starter (client-java), or"
                + " dev.elector:elector-fabric8 with a fabric8 KubernetesClient bean");
        return Backend.AUTO;
      }
      backend = clientJava ? Backend.CLIENT_JAVA : Backend.FABRIC8;
    }
    if (backend == Backend.CLIENT_JAVA) {
      if (!clientJava) {
        problems.add(
            "elector.backend is client-java but elector-k8s-lease or io.kubernetes:client-java is"
                + " not on the class path; add dev.elector:elector-k8s-lease");
      } else if (properties.getLock() == ElectorProperties.LockKind.CONFIG_MAP
          && !classpath.clientJavaConfigMap()) {
        problems.add(
            "elector.lock is config-map but dev.elector:elector-configmap is not on the class"
                + " path; add it, or set elector.lock to lease");
      }
      if (classpath.apiClientBeans() > 1) {
        problems.add(
            "the application has "
                + classpath.apiClientBeans()
                + " ApiClient beans; mark the one for Elector @Primary");
      }
    } else if (backend == Backend.FABRIC8) {
      if (!fabric8) {
        problems.add(
            "elector.backend is fabric8 but elector-fabric8 or fabric8's kubernetes-client-api is"
                + " not on the class path; add dev.elector:elector-fabric8");
      } else if (classpath.kubernetesClientBeans() == 0) {
        problems.add(
            "Elector's fabric8 backend needs a KubernetesClient bean and the application has"
                + " none; define one, for example new KubernetesClientBuilder().build()");
      } else if (classpath.kubernetesClientBeans() > 1) {
        problems.add(
            "the application has "
                + classpath.kubernetesClientBeans()
                + " KubernetesClient beans; mark the one for Elector @Primary");
      }
    }
    return backend;
  }

  /** The core's timing checks, reported with the property names. */
  static List<String> timingProblems(ElectorProperties properties) {
    ElectorConfig.Builder builder = timings(ElectorConfig.newBuilder(), properties);
    builder
        .lock(InMemoryLockStore.create("elector.name").lockFor("elector.identity"))
        .callbacks(LeaderCallbacks.of(term -> {}, (term, end) -> {}));
    try {
      builder.build();
      return List.of();
    } catch (ElectorConfigException e) {
      List<String> problems = new ArrayList<>();
      for (String violation : e.violations()) {
        problems.add(withPropertyNames(violation));
      }
      return problems;
    }
  }

  /** Applies the timing properties to {@code builder}. */
  static ElectorConfig.Builder timings(
      ElectorConfig.Builder builder, ElectorProperties properties) {
    builder
        .leaseDuration(properties.getLeaseDuration())
        .renewDeadline(properties.getRenewDeadline())
        .retryPeriod(properties.getRetryPeriod())
        .watchWhenFollowing(properties.isWatch())
        .releaseOnClose(properties.isReleaseOnClose());
    Duration closeTimeout = properties.getCloseTimeout();
    if (closeTimeout != null) {
      builder.closeTimeout(closeTimeout);
    }
    return builder;
  }

  static String withPropertyNames(String violation) {
    Matcher m = OPTION.matcher(violation);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(PROPERTY_OF.get(m.group(1))));
    }
    m.appendTail(out);
    return out.toString();
  }
}
