package dev.elector.spring.autoconfigure;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import dev.elector.spring.LeadershipEvent;
import dev.elector.spring.LeadershipGrantedEvent;
import dev.elector.spring.LeadershipRevokedEvent;
import dev.elector.spring.autoconfigure.ElectorProperties.Backend;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.BindResult;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.origin.Origin;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * One leader elector from the {@code elector.*} properties, on the Kubernetes client that the
 * application has (see {@link ElectorProperties.Backend}), run by a lifecycle that starts the
 * candidacy once the application is ready and closes it before the web server's graceful shutdown;
 * leadership events; and {@link dev.elector.spring.LeaderOnly} methods. An application that defines
 * its own {@link LeaderElector} bean keeps it (and starts and closes it itself); the rest then
 * works on it.
 */
@AutoConfiguration
@ConditionalOnProperty(
    prefix = "elector",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(ElectorProperties.class)
@Import(ElectorAutoConfiguration.LeaderOnlyImport.class)
final class ElectorAutoConfiguration {

  /**
   * Imports the configuration that proxies the beans with {@code @LeaderOnly} methods. It is in
   * {@code dev.elector.spring}, where its post-processor can set {@link
   * dev.elector.spring.CurrentTerm}, and package-private there, so it is imported by name.
   */
  static final class LeaderOnlyImport implements ImportSelector {
    static final String CONFIGURATION = "dev.elector.spring.LeaderOnlyConfiguration";

    @Override
    public String[] selectImports(AnnotationMetadata metadata) {
      return new String[] {CONFIGURATION};
    }
  }

  /** The elector and its lifecycle, unless the application defines its own elector. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(LeaderElector.class)
  static final class ElectorConfiguration {
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private volatile Backend backend = Backend.AUTO;

    @Bean
    LeaderElector leaderElector(
        ElectorProperties properties,
        Environment environment,
        ConfigurableListableBeanFactory beans,
        ApplicationEventPublisher publisher,
        ObjectProvider<PodEnvironment> podEnvironment) {
      PodEnvironment pod = podEnvironment.getIfAvailable(PodEnvironment::system);
      ClassLoader loader = beans.getBeanClassLoader();
      ElectorSettings.Classpath classpath =
          new ElectorSettings.Classpath(
              present(
                  loader, ElectorSettings.CLIENT_JAVA_LEASE, ElectorSettings.CLIENT_JAVA_CLIENT),
              present(loader, ElectorSettings.CLIENT_JAVA_CONFIG_MAP),
              present(loader, ElectorSettings.FABRIC8_LOCK, ElectorSettings.FABRIC8_CLIENT),
              beanCount(beans, loader, ElectorSettings.CLIENT_JAVA_CLIENT),
              beanCount(beans, loader, ElectorSettings.FABRIC8_CLIENT));
      String applicationName = environment.getProperty("spring.application.name");
      ElectorSettings.Resolved resolved =
          ElectorSettings.check(properties, applicationName, pod, classpath);
      List<ElectorSettings.Problem> problems =
          new ArrayList<>(
              ElectorSettings.withUnitProblems(
                  resolved.problems(),
                  ElectorSettings.unitProblems(property -> written(environment, property))));
      String name = resolved.name();
      KubeLock lock = null;
      if (resolved.lockBuildable() && name != null) {
        try {
          lock =
              resolved.backend() == Backend.FABRIC8
                  ? Fabric8Locks.build(properties, name, pod, beans)
                  : ClientJavaLocks.build(properties, name, pod, beans);
        } catch (IllegalStateException e) {
          problems.add(
              ElectorSettings.lockProblem(
                  properties, applicationName, String.valueOf(e.getMessage())));
        } catch (UncheckedIOException e) {
          problems.add(
              new ElectorSettings.Problem("elector.backend", String.valueOf(e.getMessage())));
        }
      }
      if (!problems.isEmpty() || lock == null) {
        throw new ElectorPropertiesException(messages(problems));
      }
      backend = resolved.backend();
      Events events = new Events(publisher);
      ElectorConfig config =
          ElectorSettings.timings(ElectorConfig.newBuilder(), properties)
              .lock(lock)
              .callbacks(events)
              .readinessGate(
                  properties.isStartWhenReady() ? ready : CompletableFuture.completedFuture(null))
              .build();
      ElectorSettings.Problem requestTimeout =
          ElectorSettings.requestTimeoutProblem(properties, config.callTimeout());
      if (requestTimeout != null) {
        throw new ElectorPropertiesException(List.of(requestTimeout.message()));
      }
      LeaderElector elector = LeaderElector.create(config);
      events.elector = elector;
      return elector;
    }

    @Bean
    ElectorLifecycle electorLifecycle(LeaderElector leaderElector, ElectorProperties properties) {
      return new ElectorLifecycle(leaderElector, ready, backend, properties.isStartWhenReady());
    }

    static List<String> messages(List<ElectorSettings.Problem> problems) {
      List<String> messages = new ArrayList<>(problems.size());
      for (ElectorSettings.Problem problem : problems) {
        messages.add(problem.message());
      }
      return messages;
    }

    private static boolean present(@Nullable ClassLoader loader, String... classes) {
      for (String name : classes) {
        if (!ClassUtils.isPresent(name, loader)) {
          return false;
        }
      }
      return true;
    }

    private static int beanCount(
        ListableBeanFactory beans, @Nullable ClassLoader loader, String type) {
      if (!ClassUtils.isPresent(type, loader)) {
        return 0;
      }
      Class<?> c = ClassUtils.resolveClassName(type, loader);
      int count = beans.getBeanNamesForType(c).length;
      return count > 1 && beans.getBeanProvider(c).getIfUnique() != null ? 1 : count;
    }
  }

  /**
   * {@code property} as the application wrote it, in any spelling that Spring binds (such as {@code
   * ELECTOR_LEASEDURATION} for {@code elector.lease-duration}), with where it was written; null
   * when it is not set.
   */
  static ElectorSettings.@Nullable Written written(Environment environment, String property) {
    AtomicReference<@Nullable ConfigurationProperty> source = new AtomicReference<>();
    BindResult<String> bound =
        Binder.get(environment)
            .bind(
                property,
                Bindable.of(String.class),
                new BindHandler() {
                  @Override
                  public @Nullable Object onSuccess(
                      ConfigurationPropertyName name,
                      Bindable<?> target,
                      BindContext context,
                      @Nullable Object result) {
                    source.set(context.getConfigurationProperty());
                    return result;
                  }
                });
    if (!bound.isBound()) {
      return null;
    }
    ConfigurationProperty found = source.get();
    Object value = found == null ? null : found.getValue();
    Origin origin = found == null ? null : found.getOrigin();
    return new ElectorSettings.Written(
        String.valueOf(value == null ? bound.get() : value),
        origin == null ? null : origin.toString());
  }

  /** Spring Integration's leader events, when spring-integration-core is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.integration.leader.event.OnGrantedEvent")
  @ConditionalOnProperty(
      prefix = "elector",
      name = "integration-events",
      havingValue = "true",
      matchIfMissing = true)
  static final class IntegrationEventsConfiguration {
    @Bean
    ApplicationListener<LeadershipEvent> electorIntegrationEvents(
        ElectorProperties properties,
        Environment environment,
        ApplicationEventPublisher publisher) {
      String role = properties.getRole();
      if (role == null) {
        role = properties.getName();
      }
      if (role == null) {
        role = environment.getProperty("spring.application.name", "leader");
      }
      return new IntegrationLeaderEvents(publisher, role);
    }
  }

  /** Publishes a term's start and end as application events. */
  static final class Events implements LeaderCallbacks {
    private final ApplicationEventPublisher publisher;
    volatile @Nullable LeaderElector elector;

    Events(ApplicationEventPublisher publisher) {
      this.publisher = publisher;
    }

    @Override
    public void onStartedLeading(Term term) {
      LeaderElector source = elector;
      if (source != null) {
        publisher.publishEvent(new LeadershipGrantedEvent(source, term));
      }
    }

    @Override
    public void onStoppedLeading(Term term, TermEnd reason) {
      LeaderElector source = elector;
      if (source != null) {
        publisher.publishEvent(new LeadershipRevokedEvent(source, term, reason));
      }
    }
  }
}
