package dev.elector.quarkus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.kube.PodEnvironment;
import dev.elector.kube.WatchMode;
import dev.elector.quarkus.ElectorRuntimeConfig;
import dev.elector.quarkus.LockKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.quarkus.runtime.configuration.ConfigurationException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * quarkus.elector.* through the core's and the lock builder's checks: the same defaults, and their
 * messages with the property names. No API server: nothing here sends a request.
 */
class ElectorSettingsTest {
  private static final PodEnvironment POD =
      PodEnvironment.of(
          Map.of("POD_NAMESPACE", "apps", "POD_NAME", "my-app-0"), Map.of(), "host", "abc123");
  private static final LeaderCallbacks CALLBACKS = LeaderCallbacks.of(t -> {}, (t, r) -> {});

  private final KubernetesClient client = new KubernetesClientBuilder().build();

  @AfterEach
  void closeClient() {
    client.close();
  }

  @Test
  void unsetPropertiesTakeTheCoreAndLockDefaults() {
    ElectorConfig built = build(new Settings(), Optional.of("my-app"));
    ElectorConfig core = ElectorConfig.newBuilder().lock(built.lock()).callbacks(CALLBACKS).build();
    assertEquals(core.leaseDuration(), built.leaseDuration());
    assertEquals(core.renewDeadline(), built.renewDeadline());
    assertEquals(core.retryPeriod(), built.retryPeriod());
    assertEquals(core.jitter(), built.jitter());
    assertEquals(core.callTimeout(), built.callTimeout());
    assertEquals(core.maxBackoff(), built.maxBackoff());
    assertEquals(core.closeTimeout(), built.closeTimeout());
    assertEquals(core.healthTolerance(), built.healthTolerance());
    assertEquals(core.releaseOnClose(), built.releaseOnClose());
    assertEquals(core.watchWhenFollowing(), built.watchWhenFollowing());
    // The lock: named after the application, in the pod's namespace, as the pod.
    assertEquals("Lease apps/my-app", built.lock().describe());
    assertEquals("my-app-0_abc123", built.lock().identity());
  }

  @Test
  void setPropertiesReachTheConfigAndTheLock() {
    Settings s = new Settings();
    s.values.put("lock-kind", LockKind.CONFIGMAP);
    s.values.put("name", "other-lock");
    s.values.put("namespace", "elsewhere");
    s.values.put("identity", "me");
    s.values.put("lease-duration", Duration.ofSeconds(8));
    s.values.put("renew-deadline", Duration.ofSeconds(6));
    s.values.put("retry-period", Duration.ofSeconds(1));
    s.values.put("release-on-close", false);
    s.values.put("watch", false);
    ElectorConfig built = build(s, Optional.of("my-app"));
    assertEquals("ConfigMap elsewhere/other-lock", built.lock().describe());
    assertEquals("me", built.lock().identity());
    assertEquals(Duration.ofSeconds(8), built.leaseDuration());
    assertEquals(Duration.ofSeconds(6), built.renewDeadline());
    assertEquals(Duration.ofSeconds(3), built.callTimeout());
    assertEquals(false, built.releaseOnClose());
    assertEquals(false, built.watchWhenFollowing());
  }

  @Test
  void theLockBuildersMessagesNameTheProperties() {
    Settings s = new Settings();
    s.values.put("identity", " ");
    s.values.put("request-timeout", Duration.ZERO);
    s.values.put("event-component", "my-operator");
    s.values.put("watch-mode", WatchMode.PER_LOCK);
    ConfigurationException e =
        assertThrows(ConfigurationException.class, () -> build(s, Optional.of("my-app")));
    assertEquals(
        "Invalid quarkus.elector configuration (1 problem):\n"
            + "  - cannot build the Lease lock: quarkus.elector.identity is blank; give every"
            + " candidate a unique identity; quarkus.elector.request-timeout PT0S must be positive;"
            + " leave it unset to follow the elector's quarkus.elector.call-timeout;"
            + " quarkus.elector.event-component \"my-operator\" is set but"
            + " events are not recorded; add quarkus.elector.record-events=true, or drop"
            + " quarkus.elector.event-component",
        e.getMessage());
  }

  @Test
  void theCoresMessagesNameTheProperties() {
    Settings s = new Settings();
    s.values.put("call-timeout", Duration.ofSeconds(20));
    s.values.put("max-backoff", Duration.ofMillis(500));
    s.values.put("health-tolerance", Duration.ofSeconds(-1));
    s.values.put("close-timeout", Duration.ZERO);
    ConfigurationException e =
        assertThrows(ConfigurationException.class, () -> build(s, Optional.of("my-app")));
    String message = e.getMessage();
    assertTrue(message.startsWith("Invalid quarkus.elector configuration (4 problems):"), message);
    assertTrue(
        message.contains(
            "quarkus.elector.close-timeout PT0S must be positive; use a duration such as PT5S"),
        message);
    assertTrue(
        message.contains("quarkus.elector.health-tolerance PT-1S is negative; use zero or more"),
        message);
    assertTrue(
        message.contains(
            "quarkus.elector.call-timeout PT20S must not exceed quarkus.elector.renew-deadline"
                + " PT10S, or a hung call could outlive a term; lower quarkus.elector.call-timeout"),
        message);
    assertTrue(
        message.contains(
            "quarkus.elector.max-backoff PT0.5S must be at least quarkus.elector.retry-period"
                + " PT2S; raise quarkus.elector.max-backoff"),
        message);
  }

  private ElectorConfig build(Settings settings, Optional<String> applicationName) {
    return ElectorSettings.electorConfig(settings, applicationName, client, POD, CALLBACKS);
  }

  /** The mapping's values by property name; unset ones are empty, as SmallRye gives them. */
  private static final class Settings implements ElectorRuntimeConfig {
    final Map<String, Object> values = new HashMap<>();

    @SuppressWarnings("unchecked")
    private <T> Optional<T> get(String key) {
      return Optional.ofNullable((T) values.get(key));
    }

    @Override
    public LockKind lockKind() {
      return this.<LockKind>get("lock-kind").orElse(LockKind.LEASE);
    }

    @Override
    public Optional<String> name() {
      return get("name");
    }

    @Override
    public Optional<String> namespace() {
      return get("namespace");
    }

    @Override
    public Optional<String> identity() {
      return get("identity");
    }

    @Override
    public Optional<Duration> leaseDuration() {
      return get("lease-duration");
    }

    @Override
    public Optional<Duration> renewDeadline() {
      return get("renew-deadline");
    }

    @Override
    public Optional<Duration> retryPeriod() {
      return get("retry-period");
    }

    @Override
    public OptionalDouble jitter() {
      Optional<Double> jitter = get("jitter");
      return jitter.map(OptionalDouble::of).orElse(OptionalDouble.empty());
    }

    @Override
    public Optional<Duration> callTimeout() {
      return get("call-timeout");
    }

    @Override
    public Optional<Duration> maxBackoff() {
      return get("max-backoff");
    }

    @Override
    public Optional<Duration> closeTimeout() {
      return get("close-timeout");
    }

    @Override
    public Optional<Duration> healthTolerance() {
      return get("health-tolerance");
    }

    @Override
    public Optional<Duration> requestTimeout() {
      return get("request-timeout");
    }

    @Override
    public Optional<Boolean> releaseOnClose() {
      return get("release-on-close");
    }

    @Override
    public Optional<Boolean> watch() {
      return get("watch");
    }

    @Override
    public Optional<WatchMode> watchMode() {
      return get("watch-mode");
    }

    @Override
    public Optional<Boolean> recordEvents() {
      return get("record-events");
    }

    @Override
    public Optional<String> eventComponent() {
      return get("event-component");
    }
  }
}
