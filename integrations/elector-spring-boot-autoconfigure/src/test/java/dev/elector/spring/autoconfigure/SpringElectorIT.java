package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.elector.LeaderElector;
import dev.elector.spring.LeaderOnly;
import dev.elector.spring.LeadershipGrantedEvent;
import dev.elector.spring.LeadershipRevokedEvent;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two applications on the real API server: the candidacy waits for readiness, one leads and runs
 * the leader-only job, and closing the leader's context hands over at once.
 */
@KubeTest
class SpringElectorIT {

  /** A leader-only job, called by the test as a scheduler would. */
  static class Job {
    private final AtomicInteger runs = new AtomicInteger();

    @LeaderOnly
    public void run() {
      runs.incrementAndGet();
    }

    public int runs() {
      return runs.get();
    }
  }

  @Test
  void oneLeadsAfterReadinessAndClosingItHandsOverAtOnce(
      KubeCluster cluster, KubeNamespace namespace) {
    List<Object> events = new CopyOnWriteArrayList<>();
    ApplicationContextRunner runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    ElectorAutoConfiguration.class, ElectorActuatorAutoConfiguration.class))
            .withBean(io.kubernetes.client.openapi.ApiClient.class, cluster::admin)
            .withBean(Job.class)
            .withBean(
                "recorder",
                ApplicationListener.class,
                () ->
                    (ApplicationListener<org.springframework.context.ApplicationEvent>)
                        e -> {
                          if (e instanceof LeadershipGrantedEvent
                              || e instanceof LeadershipRevokedEvent) {
                            events.add(e);
                          }
                        })
            .withPropertyValues(
                "spring.application.name=spring-it",
                "elector.backend=client-java",
                "elector.namespace=" + namespace.name(),
                "elector.lease-duration=4s",
                "elector.renew-deadline=3s",
                "elector.retry-period=500ms");
    runner
        .withPropertyValues("elector.identity=a")
        .run(
            a ->
                runner
                    .withPropertyValues("elector.identity=b")
                    .run(
                        b -> {
                          LeaderElector ea = a.getBean(LeaderElector.class);
                          LeaderElector eb = b.getBean(LeaderElector.class);
                          // Not ready yet: nobody is a candidate, the Lease does not exist.
                          assertThat(ea.observedLeader()).isEmpty();
                          assertThat(ea.stats().totalCalls()).isZero();

                          ready(a.getSourceApplicationContext());
                          await().atMost(Duration.ofSeconds(10)).until(ea::isLeader);
                          ready(b.getSourceApplicationContext());
                          await()
                              .atMost(Duration.ofSeconds(10))
                              .until(() -> eb.observedLeader().equals(java.util.Optional.of("a")));
                          assertThat(eb.isLeader()).isFalse();

                          a.getBean(Job.class).run();
                          b.getBean(Job.class).run();
                          assertThat(a.getBean(Job.class).runs()).isEqualTo(1);
                          assertThat(b.getBean(Job.class).runs()).isZero();
                          // The events come from the start callbacks, which run on the callback
                          // executor just after isLeader() turns true.
                          await().atMost(Duration.ofSeconds(5)).until(() -> !events.isEmpty());
                          assertThat(events).hasSize(1);
                          assertThat(((LeadershipGrantedEvent) events.get(0)).getElector())
                              .isSameAs(ea);

                          long closed = System.nanoTime();
                          a.getSourceApplicationContext().close();
                          await().atMost(Duration.ofSeconds(2)).until(eb::isLeader);
                          Duration handover = Duration.ofNanos(System.nanoTime() - closed);
                          assertThat(handover).isLessThan(Duration.ofSeconds(1));
                          await().atMost(Duration.ofSeconds(5)).until(() -> events.size() >= 3);
                          assertThat(events).hasSize(3);
                          assertThat(events.get(1)).isInstanceOf(LeadershipRevokedEvent.class);
                          assertThat(events.get(2)).isInstanceOf(LeadershipGrantedEvent.class);
                          b.getBean(Job.class).run();
                          assertThat(b.getBean(Job.class).runs()).isEqualTo(1);
                          System.out.println(
                              "SpringElectorIT: handover on context close took "
                                  + handover.toMillis()
                                  + " ms");
                        }));
  }

  private static void ready(ConfigurableApplicationContext context) {
    context.publishEvent(
        new ApplicationReadyEvent(new SpringApplication(), new String[0], context, Duration.ZERO));
  }
}
