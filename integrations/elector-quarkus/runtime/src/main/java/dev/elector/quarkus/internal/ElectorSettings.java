package dev.elector.quarkus.internal;

import dev.elector.ConfigProblem;
import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.fabric8.Fabric8ConfigMapLock;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.LockKind;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.configuration.ConfigurationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@code quarkus.elector.*} into the lock and the {@link ElectorConfig}. The extension checks
 * the lock's settings itself, and the core checks the timings ({@link
 * ElectorConfig.Builder#timingProblems()}): each {@link ConfigProblem} names its builder option,
 * and {@link #PROPERTY_OF} gives the property written instead. Every problem is reported at once.
 */
public final class ElectorSettings {
  /** The prefix of every property of the extension. */
  public static final String PREFIX = "quarkus.elector.";

  /** The property of each of the core builder's timing options. */
  static final Map<String, String> PROPERTY_OF =
      Map.of(
          "leaseDuration", PREFIX + "lease-duration",
          "renewDeadline", PREFIX + "renew-deadline",
          "retryPeriod", PREFIX + "retry-period",
          "jitter", PREFIX + "jitter",
          "callTimeout", PREFIX + "call-timeout",
          "maxBackoff", PREFIX + "max-backoff",
          "closeTimeout", PREFIX + "close-timeout",
          "healthTolerance", PREFIX + "health-tolerance");

  /**
   * One problem with the properties: the property to change (the one it is about), and the sentence
   * that names it, its value, the rule and the fix.
   */
  record Problem(String property, String message) {}

  /** The configuration, or the problems that keep it from being made (then config is null). */
  record Outcome(@Nullable ElectorConfig config, List<Problem> problems) {}

  private ElectorSettings() {}

  /**
   * The elector's configuration, not yet started.
   *
   * @param applicationName {@code quarkus.application.name}, the default lock name
   * @throws ConfigurationException listing every problem, each naming its property
   */
  public static ElectorConfig electorConfig(
      ElectorRuntimeConfig config,
      Optional<String> applicationName,
      KubernetesClient client,
      PodEnvironment environment,
      LeaderCallbacks callbacks) {
    Outcome outcome = check(config, applicationName, client, environment, callbacks);
    ElectorConfig built = outcome.config();
    if (built == null) {
      throw invalid(outcome.problems().stream().map(Problem::message).toList());
    }
    return built;
  }

  /** One exception listing every problem, each on its own line. */
  private static ConfigurationException invalid(List<String> problems) {
    StringBuilder message =
        new StringBuilder("Invalid quarkus.elector configuration (")
            .append(problems.size())
            .append(problems.size() == 1 ? " problem):" : " problems):");
    for (String problem : problems) {
      message.append("\n  - ").append(problem);
    }
    return new ConfigurationException(message.toString());
  }

  /** Checks every setting; the configuration when they are all valid, else every problem. */
  static Outcome check(
      ElectorRuntimeConfig config,
      Optional<String> applicationName,
      KubernetesClient client,
      PodEnvironment environment,
      LeaderCallbacks callbacks) {
    Optional<String> name = config.name().or(() -> applicationName).filter(n -> !n.isBlank());
    List<Problem> problems = lockProblems(config, name, environment);
    LeaderLock lock = null;
    if (problems.isEmpty()) {
      try {
        lock = lock(config, name, client, environment);
      } catch (IllegalStateException e) {
        problems.add(lockProblem(config, applicationName, String.valueOf(e.getMessage())));
      }
    }
    ElectorConfig.Builder builder = timings(ElectorConfig.newBuilder(), config);
    for (ConfigProblem problem : builder.timingProblems()) {
      problems.add(
          new Problem(
              PROPERTY_OF.getOrDefault(problem.setting(), problem.setting()),
              problem.message(PROPERTY_OF)));
    }
    if (!problems.isEmpty() || lock == null) {
      return new Outcome(null, List.copyOf(problems));
    }
    ElectorConfig built = builder.lock(lock).callbacks(callbacks).build();
    Problem requestTimeout = requestTimeoutProblem(config, built.callTimeout());
    if (requestTimeout != null) {
      return new Outcome(null, List.of(requestTimeout));
    }
    return new Outcome(built, List.of());
  }

  /**
   * Whether this process leads alone on a lock in its own memory: as {@code
   * quarkus.elector.lead-alone} says, else in dev and test mode when no namespace is set and the
   * process does not run in a pod.
   */
  public static boolean leadsAlone(
      ElectorRuntimeConfig config, boolean devOrTest, PodEnvironment environment) {
    return config
        .leadAlone()
        .orElse(devOrTest && config.namespace().isEmpty() && environment.namespace().isEmpty());
  }

  /**
   * The configuration of an elector that leads alone, on a lock in this process's memory named as
   * the Kubernetes lock would be; the timings are checked as always.
   *
   * @throws ConfigurationException listing every timing problem, each naming its property
   */
  public static ElectorConfig aloneConfig(
      ElectorRuntimeConfig config,
      Optional<String> applicationName,
      PodEnvironment environment,
      LeaderCallbacks callbacks) {
    String name =
        config.name().or(() -> applicationName).filter(n -> !n.isBlank()).orElse("quarkus-app");
    String identity = config.identity().orElseGet(environment::defaultIdentity);
    ElectorConfig.Builder builder = timings(ElectorConfig.newBuilder(), config);
    List<ConfigProblem> problems = builder.timingProblems();
    if (!problems.isEmpty()) {
      throw invalid(problems.stream().map(p -> p.message(PROPERTY_OF)).toList());
    }
    return builder
        .lock(InMemoryLockStore.create(name).lockFor(identity))
        .callbacks(callbacks)
        .build();
  }

  /** Applies the timing properties that are set to {@code builder}. */
  static ElectorConfig.Builder timings(ElectorConfig.Builder builder, ElectorRuntimeConfig config) {
    config.leaseDuration().ifPresent(builder::leaseDuration);
    config.renewDeadline().ifPresent(builder::renewDeadline);
    config.retryPeriod().ifPresent(builder::retryPeriod);
    config.jitter().ifPresent(builder::jitter);
    config.callTimeout().ifPresent(builder::callTimeout);
    config.maxBackoff().ifPresent(builder::maxBackoff);
    config.closeTimeout().ifPresent(builder::closeTimeout);
    config.healthTolerance().ifPresent(builder::healthTolerance);
    config.releaseOnClose().ifPresent(builder::releaseOnClose);
    config.watch().ifPresent(builder::watchWhenFollowing);
    return builder;
  }

  /** What is missing or blank among the lock's settings, before the lock builder sees them. */
  private static List<Problem> lockProblems(
      ElectorRuntimeConfig config, Optional<String> name, PodEnvironment environment) {
    List<Problem> problems = new ArrayList<>();
    if (name.isEmpty()) {
      problems.add(
          new Problem(
              PREFIX + "name",
              PREFIX
                  + "name is not set and quarkus.application.name is empty; set "
                  + PREFIX
                  + "name to the name of the lock all replicas share, such as my-app"));
    }
    Optional<String> namespace = config.namespace();
    if (namespace.isPresent() && namespace.get().isBlank()) {
      problems.add(
          new Problem(
              PREFIX + "namespace",
              PREFIX
                  + "namespace is blank; set it to the lock's namespace, or remove it to use the"
                  + " pod's own"));
    } else if (namespace.isEmpty() && environment.namespace().isEmpty()) {
      problems.add(
          new Problem(
              PREFIX + "namespace",
              PREFIX
                  + "namespace is not set and this process does not run in a pod (no"
                  + " POD_NAMESPACE variable, no "
                  + PodEnvironment.NAMESPACE_FILE
                  + "); set "
                  + PREFIX
                  + "namespace, or POD_NAMESPACE from the Downward API"));
    }
    if (config.identity().filter(String::isBlank).isPresent()) {
      problems.add(
          new Problem(
              PREFIX + "identity",
              PREFIX
                  + "identity is blank; set a unique identity per replica, or remove it to use"
                  + " POD_NAME with a random suffix"));
    }
    Optional<Duration> requestTimeout = config.requestTimeout();
    if (requestTimeout.filter(t -> t.isZero() || t.isNegative()).isPresent()) {
      problems.add(
          new Problem(
              PREFIX + "request-timeout",
              PREFIX
                  + "request-timeout "
                  + requestTimeout.get()
                  + " must be positive; remove it to follow "
                  + PREFIX
                  + "call-timeout"));
    }
    Optional<String> eventComponent = config.eventComponent();
    if (eventComponent.isPresent() && !config.recordEvents().orElse(false)) {
      problems.add(
          new Problem(
              PREFIX + "event-component",
              PREFIX
                  + "event-component \""
                  + eventComponent.get()
                  + "\" is set but events are not recorded; set "
                  + PREFIX
                  + "record-events=true, or remove "
                  + PREFIX
                  + "event-component"));
    }
    return problems;
  }

  /**
   * What the lock builder rejected ({@code message}: a name or namespace that is not a Kubernetes
   * name, or an event component that is not a qualified name), naming the properties it comes from;
   * a lock name taken from quarkus.application.name says so.
   */
  private static Problem lockProblem(
      ElectorRuntimeConfig config, Optional<String> applicationName, String message) {
    String name =
        config.name().isPresent()
            ? PREFIX + "name"
            : PREFIX
                + "name (not set, so quarkus.application.name \""
                + applicationName.orElse("")
                + "\")";
    return new Problem(
        PREFIX + "name",
        name + ", " + PREFIX + "namespace or " + PREFIX + "event-component: " + message);
  }

  /**
   * The problem with request-timeout once the elector's call timeout is known (the elector rejects
   * a request timeout longer than its call timeout), or null.
   */
  private static @Nullable Problem requestTimeoutProblem(
      ElectorRuntimeConfig config, Duration callTimeout) {
    Duration requestTimeout = config.requestTimeout().orElse(null);
    if (requestTimeout == null || requestTimeout.compareTo(callTimeout) <= 0) {
      return null;
    }
    return new Problem(
        PREFIX + "request-timeout",
        PREFIX
            + "request-timeout "
            + requestTimeout
            + " must not exceed "
            + PREFIX
            + "call-timeout "
            + callTimeout
            + (config.callTimeout().isEmpty() ? " (" + PREFIX + "renew-deadline / 2)" : "")
            + ", or the elector cancels every request that needs that long; lower "
            + PREFIX
            + "request-timeout, or remove it to follow "
            + PREFIX
            + "call-timeout");
  }

  private static LeaderLock lock(
      ElectorRuntimeConfig config,
      Optional<String> name,
      KubernetesClient client,
      PodEnvironment environment) {
    if (config.lockKind() == LockKind.CONFIG_MAP) {
      return options(Fabric8ConfigMapLock.newBuilder(client), config, name, environment).build();
    }
    return options(Fabric8LeaseLock.newBuilder(client), config, name, environment).build();
  }

  private static KubeLock.Builder options(
      KubeLock.Builder builder,
      ElectorRuntimeConfig config,
      Optional<String> name,
      PodEnvironment environment) {
    builder.environment(environment);
    name.ifPresent(builder::name);
    config.namespace().ifPresent(builder::namespace);
    config.identity().ifPresent(builder::identity);
    config.requestTimeout().ifPresent(builder::requestTimeout);
    config.watchMode().ifPresent(builder::watchMode);
    config.recordEvents().ifPresent(builder::recordEvents);
    config.eventComponent().ifPresent(builder::eventComponent);
    return builder;
  }
}
