package dev.elector.quarkus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.kube.LockKind;
import dev.elector.kube.PodEnvironment;
import dev.elector.kube.WatchMode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.quarkus.runtime.configuration.ConfigurationException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * quarkus.elector.* through the extension's, the core's and the lock builder's checks: the same
 * defaults, and every problem naming its property. No API server: nothing here sends a request.
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
    s.values.put("lock-kind", LockKind.CONFIG_MAP);
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
  void theLockSettingsAreCheckedBeforeTheLockBuilderEachNamingItsProperty() {
    Settings s = new Settings();
    s.values.put("identity", " ");
    s.values.put("request-timeout", Duration.ZERO);
    s.values.put("event-component", "my-operator");
    s.values.put("watch-mode", WatchMode.PER_LOCK);
    List<ElectorSettings.Problem> problems = check(s, Optional.of("my-app"));
    assertEquals(
        List.of(
            "quarkus.elector.identity",
            "quarkus.elector.request-timeout",
            "quarkus.elector.event-component"),
        properties(problems));
    assertEquals(
        List.of(
            "quarkus.elector.identity is blank; set a unique identity per replica, or remove it to"
                + " use POD_NAME with a random suffix",
            "quarkus.elector.request-timeout PT0S must be positive; remove it to follow"
                + " quarkus.elector.call-timeout",
            "quarkus.elector.event-component \"my-operator\" is set but events are not recorded;"
                + " set quarkus.elector.record-events=true, or remove"
                + " quarkus.elector.event-component"),
        messages(problems));
  }

  @Test
  void theCoresProblemsNameTheProperties() {
    Settings s = new Settings();
    s.values.put("call-timeout", Duration.ofSeconds(20));
    s.values.put("max-backoff", Duration.ofMillis(500));
    s.values.put("health-tolerance", Duration.ofSeconds(-1));
    s.values.put("close-timeout", Duration.ZERO);
    List<ElectorSettings.Problem> problems = check(s, Optional.of("my-app"));
    assertEquals(
        List.of(
            "quarkus.elector.close-timeout",
            "quarkus.elector.health-tolerance",
            "quarkus.elector.call-timeout",
            "quarkus.elector.max-backoff"),
        properties(problems));
    assertEquals(
        List.of(
            "quarkus.elector.close-timeout PT0S must be positive; use a duration such as PT5S",
            "quarkus.elector.health-tolerance PT-1S is negative; use zero or more",
            "quarkus.elector.call-timeout PT20S must not exceed quarkus.elector.renew-deadline"
                + " PT10S, or a hung call could outlive a term; lower quarkus.elector.call-timeout",
            "quarkus.elector.max-backoff PT0.5S must be at least quarkus.elector.retry-period"
                + " PT2S; raise quarkus.elector.max-backoff"),
        messages(problems));
  }

  @Test
  void twoProblemsAtOnceInOneMessageEachNamingItsProperty() {
    Settings s = new Settings();
    s.values.put("name", "my-lock");
    s.values.put("namespace", "Not_A_Namespace");
    s.values.put("jitter", 0.5);
    s.values.put("renew-deadline", Duration.ofSeconds(20));
    List<ElectorSettings.Problem> problems = check(s, Optional.of("my-app"));
    assertEquals(
        List.of("quarkus.elector.name", "quarkus.elector.jitter", "quarkus.elector.renew-deadline"),
        properties(problems));
    ConfigurationException e =
        assertThrows(ConfigurationException.class, () -> build(s, Optional.of("my-app")));
    assertEquals(
        "Invalid quarkus.elector configuration (3 problems):\n"
            + "  - quarkus.elector.name, quarkus.elector.namespace or"
            + " quarkus.elector.event-component: cannot build the Lease lock: namespace"
            + " \"Not_A_Namespace\" is not a valid namespace name\n"
            + "  - quarkus.elector.jitter 0.5 must be between 1.0 and 10.0; the default is 1.2\n"
            + "  - quarkus.elector.renew-deadline PT20S must be shorter than"
            + " quarkus.elector.lease-duration PT15S; raise quarkus.elector.lease-duration or"
            + " lower quarkus.elector.renew-deadline",
        e.getMessage());
  }

  @Test
  void aLockNameFromTheApplicationNameSaysWhereItComesFrom() {
    List<ElectorSettings.Problem> problems = check(new Settings(), Optional.of("My_App"));
    assertEquals(
        List.of(
            "quarkus.elector.name (not set, so quarkus.application.name \"My_App\"),"
                + " quarkus.elector.namespace or quarkus.elector.event-component: cannot build"
                + " the Lease lock: name \"My_App\" is not a valid Kubernetes object name; use"
                + " lower case letters, digits, '-' and '.', at most 253 characters"),
        messages(problems));
  }

  @Test
  void withoutANameOrANamespaceBothAreNamed() {
    PodEnvironment outside = PodEnvironment.of(Map.of(), Map.of(), "host", "abc123");
    ElectorSettings.Outcome outcome =
        ElectorSettings.check(new Settings(), Optional.empty(), client, outside, CALLBACKS);
    assertEquals(
        List.of("quarkus.elector.name", "quarkus.elector.namespace"),
        properties(outcome.problems()));
  }

  @Test
  void aRequestTimeoutLongerThanTheCallTimeoutNamesBoth() {
    Settings s = new Settings();
    s.values.put("request-timeout", Duration.ofSeconds(6));
    assertEquals(
        List.of(
            "quarkus.elector.request-timeout PT6S must not exceed quarkus.elector.call-timeout"
                + " PT5S (quarkus.elector.renew-deadline / 2), or the elector cancels every"
                + " request that needs that long; lower quarkus.elector.request-timeout, or remove"
                + " it to follow quarkus.elector.call-timeout"),
        messages(check(s, Optional.of("my-app"))));
    s.values.put("call-timeout", Duration.ofSeconds(6));
    assertEquals(Duration.ofSeconds(6), build(s, Optional.of("my-app")).callTimeout());
  }

  @Test
  void theTimingPropertiesReachTheConfig() {
    Settings s = new Settings();
    s.values.put("jitter", 1.5);
    s.values.put("call-timeout", Duration.ofSeconds(4));
    s.values.put("max-backoff", Duration.ofSeconds(30));
    s.values.put("close-timeout", Duration.ofSeconds(7));
    s.values.put("health-tolerance", Duration.ofSeconds(1));
    ElectorConfig built = build(s, Optional.of("my-app"));
    assertEquals(1.5, built.jitter());
    assertEquals(Duration.ofSeconds(4), built.callTimeout());
    assertEquals(Duration.ofSeconds(30), built.maxBackoff());
    assertEquals(Duration.ofSeconds(7), built.closeTimeout());
    assertEquals(Duration.ofSeconds(1), built.healthTolerance());
  }

  @Test
  void theLockKindTakesEitherSpelling() {
    LockKindConverter converter = new LockKindConverter();
    assertEquals(LockKind.CONFIG_MAP, converter.convert("configmap"));
    assertEquals(LockKind.CONFIG_MAP, converter.convert("config-map"));
    assertEquals(LockKind.CONFIG_MAP, converter.convert("ConfigMap"));
    assertEquals(LockKind.CONFIG_MAP, converter.convert("CONFIG_MAP"));
    assertEquals(LockKind.LEASE, converter.convert(" lease "));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> converter.convert("zookeeper"));
    assertEquals(
        "\"zookeeper\" is not a lock kind; use lease or configmap (config-map is accepted too)",
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> converter.convert("config.map"));
  }

  private List<ElectorSettings.Problem> check(Settings settings, Optional<String> applicationName) {
    ElectorSettings.Outcome outcome =
        ElectorSettings.check(settings, applicationName, client, POD, CALLBACKS);
    assertNull(outcome.config());
    return outcome.problems();
  }

  private static List<String> properties(List<ElectorSettings.Problem> problems) {
    return problems.stream().map(ElectorSettings.Problem::property).toList();
  }

  private static List<String> messages(List<ElectorSettings.Problem> problems) {
    return problems.stream().map(ElectorSettings.Problem::message).toList();
  }

  private ElectorConfig build(Settings settings, Optional<String> applicationName) {
    return ElectorSettings.electorConfig(settings, applicationName, client, POD, CALLBACKS);
  }

  @Test
  void devAndTestModeOutsideAPodWithoutANamespaceLeadAloneAndNothingElseDoes() {
    PodEnvironment laptop = PodEnvironment.of(Map.of(), Map.of(), "laptop", "x1");
    Settings settings = new Settings();
    assertTrue(ElectorSettings.leadsAlone(settings, true, laptop), "dev or test on a laptop");
    assertFalse(ElectorSettings.leadsAlone(settings, false, laptop), "production fails instead");
    assertFalse(ElectorSettings.leadsAlone(settings, true, POD), "in a pod");
    settings.values.put("namespace", "apps");
    assertFalse(ElectorSettings.leadsAlone(settings, true, laptop), "a namespace is set");
    settings.values.put("lead-alone", true);
    assertTrue(ElectorSettings.leadsAlone(settings, false, POD), "asked for, anywhere");
    settings.values.put("lead-alone", false);
    settings.values.remove("namespace");
    assertFalse(ElectorSettings.leadsAlone(settings, true, laptop), "refused, anywhere");
  }

  @Test
  void aloneTheLockIsInMemoryNamedAsTheClusterLockWouldBeAndTheTimingsAreChecked() {
    PodEnvironment laptop = PodEnvironment.of(Map.of(), Map.of(), "laptop", "x1");
    Settings settings = new Settings();
    ElectorConfig alone =
        ElectorSettings.aloneConfig(settings, Optional.of("reports"), laptop, CALLBACKS);
    assertEquals("in-memory lock reports", alone.lock().describe());

    settings.values.put("renew-deadline", Duration.ofSeconds(20));
    ConfigurationException bad =
        assertThrows(
            ConfigurationException.class,
            () -> ElectorSettings.aloneConfig(settings, Optional.of("reports"), laptop, CALLBACKS));
    assertTrue(bad.getMessage().contains("quarkus.elector.renew-deadline"), bad.getMessage());
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

    @Override
    public Optional<Boolean> leadAlone() {
      return get("lead-alone");
    }
  }
}
