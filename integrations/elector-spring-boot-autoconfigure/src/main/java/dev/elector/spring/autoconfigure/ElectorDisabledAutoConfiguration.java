package dev.elector.spring.autoconfigure;

import dev.elector.ElectorConfig;
import dev.elector.LeaderElector;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * What {@code elector.enabled=false} leaves running. No elector and no Kubernetes client, but the
 * {@link dev.elector.spring.LeaderOnly} guard stays, so that leader-only work is skipped rather
 * than run on every replica (one WARN names the property and the methods). With {@code
 * elector.lead-when-disabled=true} this process instead leads alone, on a lock in its own memory:
 * for local runs and tests, never for more than one replica, as the WARN at start says.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "elector", name = "enabled", havingValue = "false")
@Import(ElectorAutoConfiguration.LeaderOnlyImport.class)
final class ElectorDisabledAutoConfiguration {
  /** The property that makes this process lead alone when the elector is disabled. */
  static final String LEAD_WHEN_DISABLED = "elector.lead-when-disabled";

  private static final Logger log = LoggerFactory.getLogger(ElectorDisabledAutoConfiguration.class);

  /**
   * An elector on an in-memory lock, which this process alone sees, so it leads as soon as it is a
   * candidate: the events, {@code @LeaderOnly}, {@code CurrentTerm}, health, info and metrics all
   * work as on a leader, without a cluster. The timings are checked as when enabled.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "elector", name = "lead-when-disabled", havingValue = "true")
  @ConditionalOnMissingBean(LeaderElector.class)
  @EnableConfigurationProperties(ElectorProperties.class)
  @Import(ElectorAutoConfiguration.IntegrationEventsConfiguration.class)
  static final class LeadAloneConfiguration {
    private final CompletableFuture<Void> ready = new CompletableFuture<>();

    @Bean
    LeaderElector leaderElector(
        ElectorProperties properties,
        Environment environment,
        ApplicationEventPublisher publisher,
        ObjectProvider<PodEnvironment> podEnvironment) {
      List<ElectorSettings.Problem> problems =
          new ArrayList<>(
              ElectorSettings.withUnitProblems(
                  ElectorSettings.timingProblems(properties),
                  ElectorSettings.unitProblems(
                      property -> ElectorAutoConfiguration.written(environment, property))));
      if (!problems.isEmpty()) {
        throw new ElectorPropertiesException(
            ElectorAutoConfiguration.ElectorConfiguration.messages(problems));
      }
      String name = properties.getName();
      if (name == null || name.isBlank()) {
        name = environment.getProperty("spring.application.name", "elector");
      }
      String identity = properties.getIdentity();
      if (identity == null || identity.isBlank()) {
        identity = podEnvironment.getIfAvailable(PodEnvironment::system).defaultIdentity();
      }
      ElectorAutoConfiguration.Events events = new ElectorAutoConfiguration.Events(publisher);
      LeaderElector elector =
          LeaderElector.create(
              ElectorSettings.timings(ElectorConfig.newBuilder(), properties)
                  .lock(InMemoryLockStore.create(name).lockFor(identity))
                  .callbacks(events)
                  .readinessGate(
                      properties.isStartWhenReady()
                          ? ready
                          : CompletableFuture.completedFuture(null))
                  .build());
      events.elector = elector;
      log.warn(
          "elector.enabled=false with {}=true: {} leads {} alone, on a lock in this process's"
              + " memory; every process started so leads at the same time, so use it for local"
              + " runs and tests, never for more than one replica",
          LEAD_WHEN_DISABLED,
          identity,
          name);
      return elector;
    }

    @Bean
    ElectorLifecycle electorLifecycle(LeaderElector leaderElector, ElectorProperties properties) {
      return new ElectorLifecycle(leaderElector, ready, null, properties.isStartWhenReady());
    }
  }
}
