package dev.elector.spring.autoconfigure;

import dev.elector.ConfigProblem;
import dev.elector.ElectorConfig;
import dev.elector.kube.LockKind;
import dev.elector.kube.PodEnvironment;
import dev.elector.spring.autoconfigure.ElectorProperties.Backend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the {@code elector.*} properties, all at once. The timing rules are the core's
 * ({@link ElectorConfig.Builder#timingProblems()}): each {@link ConfigProblem} names its builder
 * option, and {@link #PROPERTY_OF} gives the property written instead.
 */
final class ElectorSettings {
  static final String CLIENT_JAVA_LEASE = "dev.elector.k8s.LeaseLock";
  static final String CLIENT_JAVA_CONFIG_MAP = "dev.elector.configmap.ConfigMapLock";
  static final String CLIENT_JAVA_CLIENT = "io.kubernetes.client.openapi.ApiClient";
  static final String FABRIC8_LOCK = "dev.elector.fabric8.Fabric8LeaseLock";
  static final String FABRIC8_CLIENT = "io.fabric8.kubernetes.client.KubernetesClient";

  /** The property of each of the core builder's timing options. */
  static final Map<String, String> PROPERTY_OF =
      Map.of(
          "leaseDuration", "elector.lease-duration",
          "renewDeadline", "elector.renew-deadline",
          "retryPeriod", "elector.retry-period",
          "jitter", "elector.jitter",
          "callTimeout", "elector.call-timeout",
          "maxBackoff", "elector.max-backoff",
          "closeTimeout", "elector.close-timeout",
          "healthTolerance", "elector.health-tolerance");

  /** Every duration property, in the order of the table in docs/spring-boot.md. */
  static final List<String> DURATIONS =
      List.of(
          "elector.lease-duration",
          "elector.renew-deadline",
          "elector.retry-period",
          "elector.call-timeout",
          "elector.max-backoff",
          "elector.close-timeout",
          "elector.health-tolerance",
          "elector.request-timeout");

  /** A number without a unit, which Spring reads as milliseconds. */
  private static final Pattern BARE_NUMBER = Pattern.compile("[+-]?\\d+");

  /**
   * A duration property as the application wrote it, before Spring read it as a duration.
   *
   * @param text the value as written, such as {@code 15} or {@code 15s}
   * @param origin where it was written (Spring's origin, such as {@code System Environment Property
   *     "ELECTOR_LEASEDURATION"}), or null when unknown
   */
  record Written(String text, @Nullable String origin) {}

  /**
   * One problem with the properties: the property to change (the one it is about), and the sentence
   * that names it, its value, the rule and the fix.
   */
  record Problem(String property, String message) {}

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
      Backend backend, @Nullable String name, List<Problem> problems, boolean lockBuildable) {}

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
    List<Problem> problems = new ArrayList<>();
    Backend backend = backend(properties, classpath, problems);
    boolean lockBuildable = problems.isEmpty() && backend != Backend.AUTO;
    String name = properties.getName();
    if (name == null) {
      name = applicationName;
    }
    if (name == null || name.isBlank()) {
      lockBuildable = false;
      problems.add(
          new Problem(
              "elector.name",
              "elector.name is not set and spring.application.name is empty; set elector.name to"
                  + " the name of the lock all replicas share, such as my-app"));
    }
    if (properties.getNamespace() != null && properties.getNamespace().isBlank()) {
      lockBuildable = false;
      problems.add(
          new Problem(
              "elector.namespace",
              "elector.namespace is blank; set it to the lock's namespace, or remove it to use the"
                  + " pod's own"));
    } else if (properties.getNamespace() == null && environment.namespace().isEmpty()) {
      lockBuildable = false;
      problems.add(
          new Problem(
              "elector.namespace",
              "elector.namespace is not set and this process does not run in a pod (no"
                  + " POD_NAMESPACE variable, no "
                  + PodEnvironment.NAMESPACE_FILE
                  + "); set elector.namespace, or POD_NAMESPACE from the Downward API"));
    }
    if (properties.getIdentity() != null && properties.getIdentity().isBlank()) {
      lockBuildable = false;
      problems.add(
          new Problem(
              "elector.identity",
              "elector.identity is blank; set a unique identity per replica, or remove it to use"
                  + " POD_NAME with a random suffix"));
    }
    Duration requestTimeout = properties.getRequestTimeout();
    if (requestTimeout != null && (requestTimeout.isZero() || requestTimeout.isNegative())) {
      lockBuildable = false;
      problems.add(
          new Problem(
              "elector.request-timeout",
              "elector.request-timeout "
                  + requestTimeout
                  + " must be positive; remove it to follow elector.call-timeout"));
    }
    String eventComponent = properties.getEventComponent();
    if (eventComponent != null && !properties.isRecordEvents()) {
      lockBuildable = false;
      problems.add(
          new Problem(
              "elector.event-component",
              "elector.event-component \""
                  + eventComponent
                  + "\" is set but events are not recorded; set elector.record-events=true, or"
                  + " remove elector.event-component"));
    }
    problems.addAll(timingProblems(properties));
    return new Resolved(
        backend, name == null || name.isBlank() ? null : name, problems, lockBuildable);
  }

  private static Backend backend(
      ElectorProperties properties, Classpath classpath, List<Problem> problems) {
    Backend requested = properties.getBackend();
    boolean clientJava = classpath.clientJava();
    boolean fabric8 = classpath.fabric8();
    Backend backend = requested;
    if (requested == Backend.AUTO) {
      if (clientJava && fabric8) {
        problems.add(
            new Problem(
                "elector.backend",
                "elector.backend is auto but both backends are on the class path (elector-k8s-lease"
                    + " with client-java, and elector-fabric8 with fabric8); set elector.backend to"
                    + " client-java or fabric8"));
        return Backend.AUTO;
      }
      if (!clientJava && !fabric8) {
        problems.add(
            new Problem(
                "elector.backend",
                "no Kubernetes backend for Elector on the class path; add"
                    + " dev.elector:elector-spring-boot-starter (client-java), or"
                    + " dev.elector:elector-fabric8 with a fabric8 KubernetesClient bean"));
        return Backend.AUTO;
      }
      backend = clientJava ? Backend.CLIENT_JAVA : Backend.FABRIC8;
    }
    if (backend == Backend.CLIENT_JAVA) {
      if (!clientJava) {
        problems.add(
            new Problem(
                "elector.backend",
                "elector.backend is client-java but elector-k8s-lease or io.kubernetes:client-java is"
                    + " not on the class path; add dev.elector:elector-k8s-lease"));
      } else if (properties.getLockKind() == LockKind.CONFIG_MAP
          && !classpath.clientJavaConfigMap()) {
        problems.add(
            new Problem(
                "elector.lock-kind",
                "elector.lock-kind is configmap but dev.elector:elector-configmap is not on the"
                    + " class path; add it, or set elector.lock-kind to lease"));
      }
      if (classpath.apiClientBeans() > 1) {
        problems.add(
            new Problem(
                "elector.backend",
                "the application has "
                    + classpath.apiClientBeans()
                    + " ApiClient beans; mark the one for Elector @Primary"));
      }
    } else if (backend == Backend.FABRIC8) {
      if (!fabric8) {
        problems.add(
            new Problem(
                "elector.backend",
                "elector.backend is fabric8 but elector-fabric8 or fabric8's kubernetes-client-api is"
                    + " not on the class path; add dev.elector:elector-fabric8"));
      } else if (classpath.kubernetesClientBeans() == 0) {
        problems.add(
            new Problem(
                "elector.backend",
                "Elector's fabric8 backend needs a KubernetesClient bean and the application has"
                    + " none; define one, for example new KubernetesClientBuilder().build()"));
      } else if (classpath.kubernetesClientBeans() > 1) {
        problems.add(
            new Problem(
                "elector.backend",
                "the application has "
                    + classpath.kubernetesClientBeans()
                    + " KubernetesClient beans; mark the one for Elector @Primary"));
      }
    }
    return backend;
  }

  /** The core's timing checks, each naming its property. */
  static List<Problem> timingProblems(ElectorProperties properties) {
    List<Problem> problems = new ArrayList<>();
    for (ConfigProblem problem : timings(ElectorConfig.newBuilder(), properties).timingProblems()) {
      problems.add(
          new Problem(
              PROPERTY_OF.getOrDefault(problem.setting(), problem.setting()),
              problem.message(PROPERTY_OF)));
    }
    return problems;
  }

  /**
   * The duration properties written as a bare number, such as {@code elector.lease-duration=15}:
   * Spring reads that as milliseconds and the application then never leads, so each is refused with
   * the unit to add (zero, the same in any unit, is left to the rules). {@code written} gives a
   * property's value as written, or null when it is not set (it finds every spelling Spring binds,
   * such as {@code ELECTOR_LEASEDURATION}).
   */
  static List<Problem> unitProblems(Function<String, @Nullable Written> written) {
    List<Problem> problems = new ArrayList<>();
    for (String property : DURATIONS) {
      Written value = written.apply(property);
      // Zero is zero in any unit: the rules judge it as it is.
      if (value == null
          || !BARE_NUMBER.matcher(value.text().strip()).matches()
          || value.text().strip().matches("[+-]?0+")) {
        continue;
      }
      String number = value.text().strip();
      ConfigProblem problem =
          new ConfigProblem(
              property,
              number,
              "has no unit, so Spring reads it as "
                  + number
                  + " milliseconds"
                  + (value.origin() == null ? "" : " (set in " + value.origin() + ")"),
              "write the unit, such as " + property + "=" + number + "s");
      problems.add(new Problem(property, problem.message()));
    }
    return problems;
  }

  /**
   * {@code problems} with the unit problems added, without the timing problems that judge a value
   * read from a bare number (a rule broken by 15 milliseconds says nothing of 15 seconds): every
   * problem at once, and none that a unit fixes by itself.
   */
  static List<Problem> withUnitProblems(List<Problem> problems, List<Problem> unitProblems) {
    if (unitProblems.isEmpty()) {
      return problems;
    }
    List<Problem> kept = new ArrayList<>();
    for (Problem problem : problems) {
      boolean misread = false;
      for (Problem unit : unitProblems) {
        misread |= mentions(problem, unit.property());
      }
      if (!misread) {
        kept.add(problem);
      }
    }
    kept.addAll(unitProblems);
    return kept;
  }

  /** Whether {@code problem} names {@code property} as a whole word. */
  private static boolean mentions(Problem problem, String property) {
    return Pattern.compile(Pattern.quote(property) + "(?![\\w-])")
        .matcher(problem.message())
        .find();
  }

  /**
   * What the lock builder rejected ({@code message}: a name or namespace that is not a Kubernetes
   * name, or an event component that is not a qualified name), naming the properties it comes from;
   * a lock name taken from spring.application.name says so.
   */
  static Problem lockProblem(
      ElectorProperties properties, @Nullable String applicationName, String message) {
    String name =
        properties.getName() != null
            ? "elector.name"
            : "elector.name (not set, so spring.application.name \"" + applicationName + "\")";
    return new Problem(
        "elector.name", name + ", elector.namespace or elector.event-component: " + message);
  }

  /**
   * The problem with elector.request-timeout once the elector's call timeout is known (the elector
   * rejects a request timeout longer than its call timeout), or null.
   */
  static @Nullable Problem requestTimeoutProblem(
      ElectorProperties properties, Duration callTimeout) {
    Duration requestTimeout = properties.getRequestTimeout();
    if (requestTimeout == null || requestTimeout.compareTo(callTimeout) <= 0) {
      return null;
    }
    return new Problem(
        "elector.request-timeout",
        "elector.request-timeout "
            + requestTimeout
            + " must not exceed elector.call-timeout "
            + callTimeout
            + (properties.getCallTimeout() == null ? " (elector.renew-deadline / 2)" : "")
            + ", or the elector cancels every request that needs that long; lower"
            + " elector.request-timeout, or remove it to follow elector.call-timeout");
  }

  /** Applies the timing properties to {@code builder}. */
  static ElectorConfig.Builder timings(
      ElectorConfig.Builder builder, ElectorProperties properties) {
    builder
        .leaseDuration(properties.getLeaseDuration())
        .renewDeadline(properties.getRenewDeadline())
        .retryPeriod(properties.getRetryPeriod())
        .jitter(properties.getJitter())
        .watchWhenFollowing(properties.isWatch())
        .releaseOnClose(properties.isReleaseOnClose());
    Duration callTimeout = properties.getCallTimeout();
    if (callTimeout != null) {
      builder.callTimeout(callTimeout);
    }
    Duration maxBackoff = properties.getMaxBackoff();
    if (maxBackoff != null) {
      builder.maxBackoff(maxBackoff);
    }
    Duration closeTimeout = properties.getCloseTimeout();
    if (closeTimeout != null) {
      builder.closeTimeout(closeTimeout);
    }
    Duration healthTolerance = properties.getHealthTolerance();
    if (healthTolerance != null) {
      builder.healthTolerance(healthTolerance);
    }
    return builder;
  }
}
