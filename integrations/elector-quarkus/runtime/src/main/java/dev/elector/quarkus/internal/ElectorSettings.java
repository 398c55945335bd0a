package dev.elector.quarkus.internal;

import dev.elector.ElectorConfig;
import dev.elector.ElectorConfigException;
import dev.elector.LeaderCallbacks;
import dev.elector.fabric8.Fabric8ConfigMapLock;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.fabric8.Fabric8LockBuilder;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import dev.elector.quarkus.ElectorRuntimeConfig;
import dev.elector.quarkus.LockKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.configuration.ConfigurationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns {@code quarkus.elector.*} into the lock and the {@link ElectorConfig}, through the lock
 * builder's and the core builder's own checks. Their messages name builder options; here each names
 * the property instead, and the problems of both builders are reported together.
 */
public final class ElectorSettings {
  /** The prefix of every property of the extension. */
  public static final String PREFIX = "quarkus.elector.";

  // Builder options, as the core's and the lock builder's messages name them, and their properties.
  private static final Map<String, String> OPTIONS =
      Map.ofEntries(
          Map.entry("leaseDuration", "lease-duration"),
          Map.entry("renewDeadline", "renew-deadline"),
          Map.entry("retryPeriod", "retry-period"),
          Map.entry("callTimeout", "call-timeout"),
          Map.entry("maxBackoff", "max-backoff"),
          Map.entry("closeTimeout", "close-timeout"),
          Map.entry("healthTolerance", "health-tolerance"),
          Map.entry("requestTimeout", "request-timeout"),
          Map.entry("recordEvents", "record-events"),
          Map.entry("eventComponent", "event-component"),
          Map.entry("releaseOnClose", "release-on-close"),
          Map.entry("watchWhenFollowing", "watch"));
  private static final Pattern OPTION =
      Pattern.compile("\\b(" + String.join("|", OPTIONS.keySet()) + ")(\\([^)]*\\))?");
  // Plain words are options only where a clause begins with them or a setter call names them.
  private static final Pattern WORD =
      Pattern.compile("(^|: |; )(name|namespace|identity|jitter)\\b(\\(\\.\\.\\.\\))?");
  private static final Pattern SETTER =
      Pattern.compile("\\b(name|namespace|identity)\\(\\.\\.\\.\\)");

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
    List<String> problems = new ArrayList<>();
    LeaderLock lock = null;
    try {
      lock = lock(config, applicationName, client, environment);
    } catch (IllegalStateException e) {
      problems.add(property(String.valueOf(e.getMessage())));
    }
    // Without a lock the timings are still checked, on a stand-in, so all problems show at once.
    LeaderLock checked =
        lock != null ? lock : InMemoryLockStore.create("stand-in").lockFor("stand-in");
    ElectorConfig.Builder builder = ElectorConfig.newBuilder().lock(checked).callbacks(callbacks);
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
    ElectorConfig built = null;
    try {
      built = builder.build();
    } catch (ElectorConfigException e) {
      for (String violation : e.violations()) {
        problems.add(property(violation));
      }
    }
    if (!problems.isEmpty() || built == null || lock == null) {
      StringBuilder message =
          new StringBuilder("Invalid quarkus.elector configuration (")
              .append(problems.size())
              .append(problems.size() == 1 ? " problem):" : " problems):");
      for (String problem : problems) {
        message.append("\n  - ").append(problem);
      }
      throw new ConfigurationException(message.toString());
    }
    return built;
  }

  private static LeaderLock lock(
      ElectorRuntimeConfig config,
      Optional<String> applicationName,
      KubernetesClient client,
      PodEnvironment environment) {
    if (config.lockKind() == LockKind.CONFIGMAP) {
      return options(
              Fabric8ConfigMapLock.newBuilder(), config, applicationName, client, environment)
          .build();
    }
    return options(Fabric8LeaseLock.newBuilder(), config, applicationName, client, environment)
        .build();
  }

  private static <B extends Fabric8LockBuilder<B>> B options(
      B builder,
      ElectorRuntimeConfig config,
      Optional<String> applicationName,
      KubernetesClient client,
      PodEnvironment environment) {
    builder.client(client).environment(environment);
    // Lambdas, not builder::name: a method reference on a type variable names the class that
    // declares the setter, the builders' internal base, which this jar may not use.
    config
        .name()
        .or(() -> applicationName.filter(name -> !name.isBlank()))
        .ifPresent(name -> builder.name(name));
    config.namespace().ifPresent(namespace -> builder.namespace(namespace));
    config.identity().ifPresent(identity -> builder.identity(identity));
    config.requestTimeout().ifPresent(timeout -> builder.requestTimeout(timeout));
    config.watchMode().ifPresent(mode -> builder.watchMode(mode));
    config.recordEvents().ifPresent(record -> builder.recordEvents(record));
    config.eventComponent().ifPresent(component -> builder.eventComponent(component));
    return builder;
  }

  /** A builder's message with each option it names replaced by its property. */
  static String property(String message) {
    String text =
        replace(
            OPTION,
            message,
            m ->
                PREFIX
                    + OPTIONS.get(m.group(1))
                    + ("(true)".equals(m.group(2)) || "(false)".equals(m.group(2))
                        ? "=" + m.group(2).substring(1, m.group(2).length() - 1)
                        : ""));
    text =
        replace(
            SETTER,
            text,
            m ->
                PREFIX
                    + m.group(1)
                    + (m.group(1).equals("name") ? " (default quarkus.application.name)" : ""));
    return replace(WORD, text, m -> m.group(1) + PREFIX + m.group(2));
  }

  private static String replace(
      Pattern pattern, String text, java.util.function.Function<Matcher, String> by) {
    Matcher m = pattern.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(by.apply(m)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
