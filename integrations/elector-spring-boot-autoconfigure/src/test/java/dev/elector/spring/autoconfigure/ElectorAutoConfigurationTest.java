package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.micrometer.ElectorMetrics;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;

/**
 * Every condition of the auto-configuration and every property check, in an application context
 * without an API server: the candidacy waits for the application to be ready, which these contexts
 * never are, so nothing is sent.
 */
class ElectorAutoConfigurationTest {
  /** A process outside any pod: no namespace to default to. */
  static final PodEnvironment OUTSIDE_A_POD = PodEnvironment.of(Map.of(), Map.of(), "host", "x");

  static final ApplicationContextRunner RUNNER =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ElectorAutoConfiguration.class, ElectorActuatorAutoConfiguration.class))
          .withBean(PodEnvironment.class, () -> OUTSIDE_A_POD)
          .withPropertyValues("spring.application.name=my-app", "elector.namespace=apps");

  /** client-java only, as with the starter and no fabric8. */
  static final FilteredClassLoader NO_FABRIC8 = new FilteredClassLoader("dev.elector.fabric8");

  static final FilteredClassLoader NO_CLIENT_JAVA = new FilteredClassLoader("dev.elector.k8s");

  @Configuration(proxyBeanMethods = false)
  static class ApiClientBean {
    @Bean
    ApiClient apiClient() {
      return new ApiClient();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Fabric8ClientBean {
    @Bean(destroyMethod = "close")
    KubernetesClient kubernetesClient() {
      return fabric8Client();
    }
  }

  static String failure(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    Throwable t = context.getStartupFailure();
    while (t != null && !(t instanceof ElectorPropertiesException)) {
      t = t.getCause();
    }
    assertThat(t).as("an ElectorPropertiesException").isNotNull();
    return t.getMessage();
  }

  @Test
  void clientJavaLeaseOnTheApplicationsApiClient() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withUserConfiguration(ApiClientBean.class)
        .withPropertyValues("elector.identity=me")
        .run(
            context -> {
              assertThat(context).hasSingleBean(LeaderElector.class);
              assertThat(context).hasSingleBean(ElectorLifecycle.class);
              LeaderElector elector = context.getBean(LeaderElector.class);
              assertThat(elector.describe()).contains("Lease apps/my-app");
              assertThat(elector.identity()).isEqualTo("me");
              assertThat(context.getBean(ElectorLifecycle.class).isRunning()).isTrue();
              assertThat(elector.isLeader()).isFalse();
            });
  }

  @Test
  void configMapLockAndAnExplicitName() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withUserConfiguration(ApiClientBean.class)
        .withPropertyValues("elector.lock-kind=configmap", "elector.name=jobs")
        .run(
            context ->
                assertThat(context.getBean(LeaderElector.class).describe())
                    .contains("ConfigMap apps/jobs"));
  }

  @Test
  void theLockKindTakesEitherSpellingAndItsFormerName() {
    for (String setting :
        new String[] {
          "elector.lock-kind=config-map", "elector.lock-kind=ConfigMap", "elector.lock=configmap"
        }) {
      RUNNER
          .withClassLoader(NO_FABRIC8)
          .withUserConfiguration(ApiClientBean.class)
          .withPropertyValues(setting)
          .run(
              context ->
                  assertThat(context.getBean(LeaderElector.class).describe())
                      .as(setting)
                      .contains("ConfigMap apps/my-app"));
    }
  }

  @Test
  void withoutAnApiClientBeanTheStandardClientIsUsed() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .run(context -> assertThat(context).hasSingleBean(LeaderElector.class));
  }

  @Test
  void fabric8WhenOnlyFabric8IsPresent() {
    RUNNER
        .withClassLoader(NO_CLIENT_JAVA)
        .withUserConfiguration(Fabric8ClientBean.class)
        .run(
            context -> {
              LeaderElector elector = context.getBean(LeaderElector.class);
              assertThat(elector.describe()).contains("Lease apps/my-app");
              assertThat(context.getBean(ElectorLifecycle.class).backend())
                  .isEqualTo(ElectorProperties.Backend.FABRIC8);
            });
  }

  @Test
  void fabric8ChosenByPropertyWhenBothArePresent() {
    RUNNER
        .withUserConfiguration(Fabric8ClientBean.class, ApiClientBean.class)
        .withPropertyValues("elector.backend=fabric8")
        .run(
            context ->
                assertThat(context.getBean(ElectorLifecycle.class).backend())
                    .isEqualTo(ElectorProperties.Backend.FABRIC8));
  }

  @Test
  void clientJavaChosenByPropertyWhenBothArePresent() {
    RUNNER
        .withUserConfiguration(ApiClientBean.class)
        .withPropertyValues("elector.backend=client-java")
        .run(
            context ->
                assertThat(context.getBean(ElectorLifecycle.class).backend())
                    .isEqualTo(ElectorProperties.Backend.CLIENT_JAVA));
  }

  @Test
  void bothBackendsWithoutTheProperty() {
    RUNNER
        .withUserConfiguration(ApiClientBean.class)
        .run(
            context ->
                assertThat(failure(context))
                    .contains("both backends are on the class path")
                    .contains("set elector.backend to client-java or fabric8"));
  }

  @Test
  void noBackend() {
    RUNNER
        .withClassLoader(new FilteredClassLoader("dev.elector.k8s", "dev.elector.fabric8"))
        .run(
            context ->
                assertThat(failure(context))
                    .contains("no Kubernetes backend for Elector on the class path")
                    .contains("dev.elector:elector-spring-boot-starter"));
  }

  @Test
  void clientJavaRequestedButAbsent() {
    RUNNER
        .withClassLoader(NO_CLIENT_JAVA)
        .withPropertyValues("elector.backend=client-java")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.backend is client-java but elector-k8s-lease"));
  }

  @Test
  void configMapWithoutElectorConfigmap() {
    RUNNER
        .withClassLoader(new FilteredClassLoader("dev.elector.fabric8", "dev.elector.configmap"))
        .withPropertyValues("elector.lock-kind=configmap")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.lock-kind is configmap but dev.elector:elector-configmap"));
  }

  @Test
  void fabric8WithoutAKubernetesClientBean() {
    RUNNER
        .withClassLoader(NO_CLIENT_JAVA)
        .run(
            context ->
                assertThat(failure(context))
                    .contains("needs a KubernetesClient bean and the application has none"));
  }

  @Test
  void fabric8RequestedButAbsent() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.backend=fabric8")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.backend is fabric8 but elector-fabric8"));
  }

  @Test
  void twoApiClientsWithoutAPrimary() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withBean("one", ApiClient.class, ApiClient::new)
        .withBean("two", ApiClient.class, ApiClient::new)
        .run(context -> assertThat(failure(context)).contains("2 ApiClient beans"));
  }

  @Test
  void missingName() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ElectorAutoConfiguration.class))
        .withBean(PodEnvironment.class, () -> OUTSIDE_A_POD)
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.namespace=apps")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.name is not set and spring.application.name is empty"));
  }

  @Test
  void missingNamespaceOutsideAPod() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ElectorAutoConfiguration.class))
        .withBean(PodEnvironment.class, () -> OUTSIDE_A_POD)
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.name=x")
        .run(
            context ->
                assertThat(failure(context))
                    .contains(
                        "elector.namespace is not set and this process does not run in a pod"));
  }

  @Test
  void thePodsNamespaceIsTheDefault() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ElectorAutoConfiguration.class))
        .withBean(
            PodEnvironment.class,
            () -> PodEnvironment.of(Map.of("POD_NAMESPACE", "team"), Map.of(), "host", "x"))
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.name=x")
        .run(
            context ->
                assertThat(context.getBean(LeaderElector.class).describe()).contains("team/x"));
  }

  @Test
  void blankNamespaceAndIdentity() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.namespace= ", "elector.identity= ")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.namespace is blank")
                    .contains("elector.identity is blank"));
  }

  @Test
  void badTimingsNameTheProperties() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.lease-duration=10s", "elector.renew-deadline=12s")
        .run(
            context ->
                assertThat(failure(context))
                    .contains(
                        "elector.renew-deadline PT12S must be shorter than elector.lease-duration"
                            + " PT10S; raise elector.lease-duration or lower"
                            + " elector.renew-deadline"));
  }

  @Test
  void nonPositiveDurations() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.retry-period=0s", "elector.close-timeout=-1s")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.retry-period PT0S must be positive")
                    .contains("elector.close-timeout PT-1S must be positive"));
  }

  @Test
  void retryPeriodTooLongForTheRenewDeadline() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.retry-period=9s")
        .run(
            context ->
                assertThat(failure(context))
                    .contains(
                        "elector.renew-deadline PT10S must be longer than elector.jitter 1.2 x"
                            + " elector.retry-period PT9S = PT10.8S; raise elector.renew-deadline"
                            + " or lower elector.retry-period"));
  }

  @Test
  void aDurationWithoutAUnitIsRefusedWithTheUnitToAdd() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues(
            "elector.lease-duration=15",
            "elector.renew-deadline=10",
            "elector.retry-period=2s",
            "elector.jitter=0.5")
        .run(
            context ->
                // Read as 15 ms and 10 ms, these break no rule the core would report usefully:
                // only the missing units are listed, with the problem they do not fix.
                assertThat(failure(context))
                    .startsWith("Elector cannot start (3 problems):")
                    .contains("\n  - elector.jitter 0.5 must be between 1.0 and 10.0")
                    .contains(
                        "\n  - elector.lease-duration 15 has no unit, so Spring reads it as 15"
                            + " milliseconds (set in \"elector.lease-duration\" from property"
                            + " source \"test\"); write the unit, such as"
                            + " elector.lease-duration=15s")
                    .contains(
                        "\n  - elector.renew-deadline 10 has no unit, so Spring reads it as 10"
                            + " milliseconds (set in \"elector.renew-deadline\" from property"
                            + " source \"test\"); write the unit, such as"
                            + " elector.renew-deadline=10s")
                    .doesNotContain("must be shorter"));
  }

  @Test
  void everyDurationPropertyNeedsItsUnit() {
    for (String property : ElectorSettings.DURATIONS) {
      RUNNER
          .withClassLoader(NO_FABRIC8)
          .withPropertyValues(property + "=3")
          .run(
              context ->
                  assertThat(failure(context))
                      .as(property)
                      .contains(property + " 3 has no unit")
                      .contains("such as " + property + "=3s"));
    }
  }

  @Test
  void aDurationWithoutAUnitIsFoundUnderEveryNameSpringBinds() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withInitializer(
            context ->
                context
                    .getEnvironment()
                    .getPropertySources()
                    .addFirst(
                        new SystemEnvironmentPropertySource(
                            "test-systemEnvironment",
                            Map.<String, Object>of("ELECTOR_LEASEDURATION", "15"))))
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.lease-duration 15 has no unit")
                    .contains("ELECTOR_LEASEDURATION")
                    .contains("such as elector.lease-duration=15s"));
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withInitializer(
            context -> {
              try {
                for (PropertySource<?> file :
                    new PropertiesPropertySourceLoader()
                        .load("file", new ClassPathResource("bare-lease-duration.properties"))) {
                  context.getEnvironment().getPropertySources().addFirst(file);
                }
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            })
        .run(
            context ->
                assertThat(failure(context))
                    // From a jar (the tests on Boot 3.5), Boot names the jar before the line.
                    .contains(
                        "\n  - elector.lease-duration 15 has no unit, so Spring reads it as 15"
                            + " milliseconds (set in class path resource"
                            + " [bare-lease-duration.properties]")
                    .contains(" - 3:24); write the unit, such as elector.lease-duration=15s"));
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.closeTimeout=4")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.close-timeout 4 has no unit")
                    .contains("such as elector.close-timeout=4s"));
  }

  @Test
  void durationsWithAUnitAndZeroAreNotAUnitProblem() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withUserConfiguration(ApiClientBean.class)
        .withPropertyValues(
            "elector.lease-duration=PT20S",
            "elector.renew-deadline=12000ms",
            "elector.retry-period=3s")
        .run(
            context -> {
              assertThat(context).hasSingleBean(LeaderElector.class);
              assertThat(context.getBean(ElectorProperties.class).getRenewDeadline())
                  .isEqualTo(Duration.ofSeconds(12));
            });
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.retry-period=0")
        .run(
            context ->
                assertThat(failure(context))
                    .contains("elector.retry-period PT0S must be positive")
                    .doesNotContain("has no unit"));
  }

  @Test
  void theUnitCheckCoversEveryDurationProperty() {
    // A new Duration property left out of DURATIONS would take a bare number as milliseconds.
    List<String> durations = new ArrayList<>();
    for (java.beans.PropertyDescriptor d :
        new BeanWrapperImpl(new ElectorProperties()).getPropertyDescriptors()) {
      if (d.getPropertyType() == Duration.class) {
        durations.add(
            "elector." + d.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT));
      }
    }
    assertThat(ElectorSettings.DURATIONS).containsExactlyInAnyOrderElementsOf(durations);
  }

  @Test
  void aValueThatDoesNotBindIsBootsFailureNamingTheProperty() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.lease-duration=soon")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("soon");
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("elector.lease-duration");
            });
  }

  @Test
  void aBadLockNameComesFromTheLockBuilder() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.name=Not_A_Name")
        .run(
            context ->
                assertThat(failure(context))
                    .contains(
                        "elector.name, elector.namespace or elector.event-component: cannot build"
                            + " the Lease lock: name \"Not_A_Name\" is not a valid Kubernetes"
                            + " object name"));
  }

  @Test
  void aBadLockNameFromTheApplicationNameSaysWhereItComesFrom() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("spring.application.name=My_App")
        .run(
            context ->
                assertThat(failure(context))
                    .contains(
                        "elector.name (not set, so spring.application.name \"My_App\"),"
                            + " elector.namespace or elector.event-component: cannot build the"
                            + " Lease lock: name \"My_App\" is not a valid Kubernetes object"
                            + " name"));
  }

  @Test
  void twoTimingProblemsAtOnceEachNamingItsProperty() {
    ElectorProperties properties = new ElectorProperties();
    properties.setJitter(0.5);
    properties.setMaxBackoff(Duration.ofSeconds(1));
    properties.setHealthTolerance(Duration.ofSeconds(-1));
    List<ElectorSettings.Problem> problems = ElectorSettings.timingProblems(properties);
    assertThat(problems)
        .extracting(ElectorSettings.Problem::property)
        .containsExactly("elector.health-tolerance", "elector.jitter", "elector.max-backoff");
    assertThat(problems)
        .extracting(ElectorSettings.Problem::message)
        .containsExactly(
            "elector.health-tolerance PT-1S is negative; use zero or more",
            "elector.jitter 0.5 must be between 1.0 and 10.0; the default is 1.2",
            "elector.max-backoff PT1S must be at least elector.retry-period PT2S; raise"
                + " elector.max-backoff");
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.call-timeout=11s", "elector.jitter=0.5")
        .run(
            context ->
                assertThat(failure(context))
                    .startsWith("Elector cannot start (2 problems):")
                    .contains("\n  - elector.jitter 0.5 must be between 1.0 and 10.0")
                    .contains(
                        "\n  - elector.call-timeout PT11S must not exceed elector.renew-deadline"
                            + " PT10S, or a hung call could outlive a term; lower"
                            + " elector.call-timeout"));
  }

  @Test
  void everyPropertyAProblemNamesBindsToASetting() {
    // A map entry with a typo would name a property the application cannot set.
    ElectorProperties defaults = new ElectorProperties();
    for (String property : ElectorSettings.PROPERTY_OF.values()) {
      // "7" binds both as a duration (7 ms) and as a number.
      ElectorProperties bound =
          new Binder(new MapConfigurationPropertySource(Map.of(property, "7")))
              .bind("elector", ElectorProperties.class)
              .get();
      BeanWrapperImpl given = new BeanWrapperImpl(bound);
      BeanWrapperImpl unset = new BeanWrapperImpl(defaults);
      assertThat(given.getPropertyDescriptors())
          .as(property)
          .anyMatch(
              d ->
                  d.getReadMethod() != null
                      && !java.util.Objects.equals(
                          given.getPropertyValue(d.getName()),
                          unset.getPropertyValue(d.getName())));
    }
  }

  @Test
  void theTimingPropertiesReachTheConfig() {
    ElectorProperties properties = new ElectorProperties();
    properties.setLeaseDuration(Duration.ofSeconds(20));
    properties.setRenewDeadline(Duration.ofSeconds(12));
    properties.setRetryPeriod(Duration.ofSeconds(3));
    properties.setJitter(1.5);
    properties.setCallTimeout(Duration.ofSeconds(4));
    properties.setMaxBackoff(Duration.ofSeconds(30));
    properties.setCloseTimeout(Duration.ofSeconds(7));
    properties.setHealthTolerance(Duration.ofSeconds(1));
    ElectorConfig config =
        ElectorSettings.timings(ElectorConfig.newBuilder(), properties)
            .lock(InMemoryLockStore.create("l").lockFor("me"))
            .callbacks(LeaderCallbacks.of(t -> {}, (t, e) -> {}))
            .build();
    assertThat(config.leaseDuration()).isEqualTo(Duration.ofSeconds(20));
    assertThat(config.renewDeadline()).isEqualTo(Duration.ofSeconds(12));
    assertThat(config.retryPeriod()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.jitter()).isEqualTo(1.5);
    assertThat(config.callTimeout()).isEqualTo(Duration.ofSeconds(4));
    assertThat(config.maxBackoff()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.closeTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(config.healthTolerance()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void theLockPropertiesAreCheckedBeforeTheLockIsBuilt() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.request-timeout=0s", "elector.event-component=my-operator")
        .run(
            context ->
                assertThat(failure(context))
                    .startsWith("Elector cannot start (2 problems):")
                    .contains(
                        "elector.request-timeout PT0S must be positive; remove it to follow"
                            + " elector.call-timeout")
                    .contains(
                        "elector.event-component \"my-operator\" is set but events are not"
                            + " recorded; set elector.record-events=true, or remove"
                            + " elector.event-component"));
  }

  @Test
  void aRequestTimeoutLongerThanTheCallTimeoutNamesBoth() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withUserConfiguration(ApiClientBean.class)
        .withPropertyValues("elector.request-timeout=6s")
        .run(
            context ->
                assertThat(failure(context))
                    .contains(
                        "elector.request-timeout PT6S must not exceed elector.call-timeout PT5S"
                            + " (elector.renew-deadline / 2)"));
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withUserConfiguration(ApiClientBean.class)
        .withPropertyValues(
            "elector.request-timeout=3s",
            "elector.call-timeout=4s",
            "elector.record-events=true",
            "elector.event-component=my-operator")
        .run(context -> assertThat(context).hasSingleBean(LeaderElector.class));
  }

  @Test
  void everyProblemAtOnce() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ElectorAutoConfiguration.class))
        .withBean(PodEnvironment.class, () -> OUTSIDE_A_POD)
        .withPropertyValues("elector.renew-deadline=20s", "elector.identity=")
        .run(
            context -> {
              String message = failure(context);
              assertThat(message)
                  .startsWith("Elector cannot start (5 problems):")
                  .contains("both backends are on the class path")
                  .contains("elector.name is not set")
                  .contains("elector.namespace is not set")
                  .contains("elector.identity is blank")
                  .contains("elector.renew-deadline PT20S must be shorter");
            });
  }

  @Test
  void theFailureAnalyzerReportsEveryProblem() {
    ElectorPropertiesException e = new ElectorPropertiesException(List.of("one", "two"));
    var analysis = new ElectorFailureAnalyzer().analyze(e);
    assertThat(analysis.getDescription())
        .contains("2 problems")
        .contains("- one")
        .contains("- two");
    assertThat(analysis.getAction()).contains("elector.*");
  }

  @Test
  void theTimingDefaultsAreTheCores() {
    ElectorProperties properties = new ElectorProperties();
    assertThat(properties.getLeaseDuration()).isEqualTo(ElectorConfig.DEFAULT_LEASE_DURATION);
    assertThat(properties.getRenewDeadline()).isEqualTo(ElectorConfig.DEFAULT_RENEW_DEADLINE);
    assertThat(properties.getRetryPeriod()).isEqualTo(ElectorConfig.DEFAULT_RETRY_PERIOD);
    assertThat(properties.getJitter()).isEqualTo(ElectorConfig.DEFAULT_JITTER);
  }

  @Test
  void theFailureAnalyzerIsRegistered() {
    // Boot's own analyzers take constructor arguments; only whether this one loads matters here.
    SpringFactoriesLoader.FailureHandler ignore =
        SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {});
    assertThat(
            SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class, ignore))
        .anyMatch(ElectorFailureAnalyzer.class::isInstance);
  }

  /**
   * Boot reads the auto-configurations by name from the imports file and creates them by
   * reflection, so none of them has to be API; the same goes for the {@code @LeaderOnly}
   * configuration that {@link ElectorAutoConfiguration} imports by name.
   */
  @Test
  void bootFindsTheAutoConfigurationsByName() throws ClassNotFoundException {
    ClassLoader loader = getClass().getClassLoader();
    List<String> ours = new ArrayList<>();
    for (String name : ImportCandidates.load(AutoConfiguration.class, loader)) {
      if (name.startsWith("dev.elector.")) {
        ours.add(name);
      }
    }
    assertThat(ours)
        .containsExactly(
            ElectorAutoConfiguration.class.getName(),
            ElectorDisabledAutoConfiguration.class.getName(),
            ElectorActuatorAutoConfiguration.class.getName(),
            ElectorHealthAutoConfiguration.class.getName(),
            ElectorBootThreeHealthAutoConfiguration.class.getName());
    Class<?> leaderOnly =
        ClassUtils.forName(ElectorAutoConfiguration.LeaderOnlyImport.CONFIGURATION, loader);
    assertThat(leaderOnly).hasAnnotation(Configuration.class);
    for (Class<?> type :
        List.of(
            ElectorAutoConfiguration.class,
            ElectorDisabledAutoConfiguration.class,
            ElectorActuatorAutoConfiguration.class,
            ElectorHealthAutoConfiguration.class,
            leaderOnly)) {
      assertThat(Modifier.isPublic(type.getModifiers())).as(type.getName()).isFalse();
    }
  }

  @Test
  void disabled() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(LeaderElector.class);
              assertThat(context).doesNotHaveBean(ElectorLifecycle.class);
              assertThat(context).doesNotHaveBean(ElectorMetrics.class);
              assertThat(context).doesNotHaveBean(InfoContributor.class);
            });
  }

  @Test
  void theApplicationsOwnElectorIsKeptAndObserved() {
    LeaderElector own =
        LeaderElector.create(
            ElectorConfig.newBuilder()
                .lock(InMemoryLockStore.create("own").lockFor("mine"))
                .callbacks(LeaderCallbacks.of(t -> {}, (t, e) -> {}))
                .build());
    RUNNER
        .withBean(LeaderElector.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(LeaderElector.class)).isSameAs(own);
              assertThat(context).doesNotHaveBean(ElectorLifecycle.class);
              assertThat(context).hasSingleBean(ElectorMetrics.class);
            });
  }

  @Test
  void metricsAndInfo() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withPropertyValues("elector.identity=me")
        .run(
            context -> {
              MeterRegistry registry = new SimpleMeterRegistry();
              context.getBean(ElectorMetrics.class).bindTo(registry);
              assertThat(registry.get(ElectorMetrics.LEADER).gauge().value()).isEqualTo(0.0);
              Info.Builder info = new Info.Builder();
              context.getBean(InfoContributor.class).contribute(info);
              @SuppressWarnings("unchecked")
              Map<String, Object> elector = (Map<String, Object>) info.build().get("elector");
              assertThat(elector)
                  .containsEntry("identity", "me")
                  .containsEntry("leading", false)
                  .containsEntry("lock", context.getBean(LeaderElector.class).describe());
            });
  }

  @Test
  void noMetricsWithoutMicrometer() {
    RUNNER
        .withClassLoader(new FilteredClassLoader("dev.elector.fabric8", "io.micrometer"))
        .run(
            context -> {
              assertThat(context).hasSingleBean(LeaderElector.class);
              assertThat(context).doesNotHaveBean(ElectorMetrics.class);
            });
  }

  @Test
  void noInfoWithoutActuator() {
    RUNNER
        .withClassLoader(
            new FilteredClassLoader("dev.elector.fabric8", "org.springframework.boot.actuate"))
        .run(
            context -> {
              assertThat(context).hasSingleBean(LeaderElector.class);
              assertThat(context).doesNotHaveBean(InfoContributor.class);
            });
  }

  @Test
  void theCandidacyWaitsForTheApplicationToBeReady() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withBean(ApiClient.class, ElectorAutoConfigurationTest::unreachable)
        .run(
            context -> {
              LeaderElector elector = context.getBean(LeaderElector.class);
              assertThat(elector.stats().totalCalls()).isZero();
              context.publishEvent(
                  new ApplicationReadyEvent(
                      new SpringApplication(),
                      new String[0],
                      context.getSourceApplicationContext(),
                      Duration.ZERO));
              await().atMost(Duration.ofSeconds(10)).until(() -> elector.stats().totalCalls() > 0);
            });
  }

  @Test
  void withoutStartWhenReadyTheCandidacyStartsWithTheContext() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withBean(ApiClient.class, ElectorAutoConfigurationTest::unreachable)
        .withPropertyValues("elector.start-when-ready=false")
        .run(
            context -> {
              LeaderElector elector = context.getBean(LeaderElector.class);
              await().atMost(Duration.ofSeconds(10)).until(() -> elector.stats().totalCalls() > 0);
            });
  }

  @Test
  void closingTheContextClosesTheElector() {
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withUserConfiguration(ApiClientBean.class)
        .run(
            context -> {
              LeaderElector elector = context.getBean(LeaderElector.class);
              ElectorLifecycle lifecycle = context.getBean(ElectorLifecycle.class);
              context.close();
              assertThat(lifecycle.isRunning()).isFalse();
              assertThat(elector.closeAsync()).isCompleted();
            });
  }

  @Test
  void theApplicationsOwnBeansWin() {
    ElectorMetrics own =
        ElectorMetrics.of(
            LeaderElector.create(
                ElectorConfig.newBuilder()
                    .lock(InMemoryLockStore.create("own").lockFor("mine"))
                    .callbacks(LeaderCallbacks.of(t -> {}, (t, e) -> {}))
                    .build()));
    InfoContributor ownInfo = builder -> {};
    RUNNER
        .withClassLoader(NO_FABRIC8)
        .withBean(ElectorMetrics.class, () -> own)
        .withBean("electorInfoContributor", InfoContributor.class, () -> ownInfo)
        .run(
            context -> {
              assertThat(context.getBean(ElectorMetrics.class)).isSameAs(own);
              assertThat(context.getBean(InfoContributor.class)).isSameAs(ownInfo);
            });
  }

  @Test
  void twoKubernetesClientsWithoutAPrimary() {
    RUNNER
        .withClassLoader(NO_CLIENT_JAVA)
        .withBean("one", KubernetesClient.class, ElectorAutoConfigurationTest::fabric8Client)
        .withBean("two", KubernetesClient.class, ElectorAutoConfigurationTest::fabric8Client)
        .run(context -> assertThat(failure(context)).contains("2 KubernetesClient beans"));
  }

  @Test
  void fabric8ConfigMap() {
    RUNNER
        .withClassLoader(NO_CLIENT_JAVA)
        .withUserConfiguration(Fabric8ClientBean.class)
        .withPropertyValues("elector.lock-kind=configmap", "elector.identity=me")
        .run(
            context -> {
              LeaderElector elector = context.getBean(LeaderElector.class);
              assertThat(elector.describe()).contains("ConfigMap apps/my-app");
              assertThat(elector.identity()).isEqualTo("me");
            });
  }

  /** A client of a port that nothing listens on: every request fails at once. */
  static ApiClient unreachable() {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return new ApiClient().setBasePath("http://127.0.0.1:" + port);
  }

  static KubernetesClient fabric8Client() {
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:9").build())
        .build();
  }
}
