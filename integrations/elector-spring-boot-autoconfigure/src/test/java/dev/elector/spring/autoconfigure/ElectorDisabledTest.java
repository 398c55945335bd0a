package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.kube.PodEnvironment;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.spring.CurrentTerm;
import dev.elector.spring.LeaderOnly;
import dev.elector.spring.LeadershipEvent;
import dev.elector.spring.LeadershipGrantedEvent;
import dev.elector.spring.LeadershipRevokedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;

/**
 * {@code elector.enabled=false}: leader-only work is skipped, never run on every replica; and
 * {@code elector.lead-when-disabled=true}, which makes this process lead alone for local runs and
 * tests. Neither needs Kubernetes: the backends are hidden from the class path, and no namespace is
 * set.
 */
@ExtendWith(OutputCaptureExtension.class)
class ElectorDisabledTest {
  private static final String SKIPPED = "no replica leads, so every call of a @LeaderOnly method";
  private static final String ALONE = "on a lock in this process's memory";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ElectorAutoConfiguration.class,
                  ElectorDisabledAutoConfiguration.class,
                  ElectorActuatorAutoConfiguration.class))
          .withBean(PodEnvironment.class, () -> ElectorAutoConfigurationTest.OUTSIDE_A_POD)
          .withPropertyValues("spring.application.name=my-app", "elector.enabled=false");

  /** A bean with leader-only methods, as an application has. */
  static class Job {
    private final AtomicInteger runs = new AtomicInteger();
    private volatile @Nullable Term seen;

    // The test reads the state through methods: fields of a CGLIB proxy are its own.
    public int runs() {
      return runs.get();
    }

    public @Nullable Term seen() {
      return seen;
    }

    @LeaderOnly
    public void work() {
      runs.incrementAndGet();
      seen = CurrentTerm.get().orElseThrow(); // as the guide's snippet does
    }

    @LeaderOnly
    public @Nullable String report() {
      runs.incrementAndGet();
      return "report";
    }
  }

  private static void ready(AssertableApplicationContext context) {
    context.publishEvent(
        new ApplicationReadyEvent(
            new SpringApplication(),
            new String[0],
            context.getSourceApplicationContext(),
            Duration.ZERO));
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void disabledSkipsLeaderOnlyMethodsAndSaysSoOnce(CapturedOutput output) {
    runner
        .withBean(Job.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(LeaderElector.class);
              assertThat(output.getAll()).as("at start, before any call").contains(SKIPPED);
              Job job = context.getBean(Job.class);
              for (int i = 0; i < 5; i++) {
                job.work();
                assertThat(job.report()).isNull();
              }
              assertThat(job.runs()).isZero();
              assertThat(CurrentTerm.get()).isEmpty();
              String log = output.getAll();
              assertThat(count(log, SKIPPED)).as(log).isEqualTo(1);
              assertThat(log)
                  .contains("elector.enabled=false: " + SKIPPED)
                  .contains("Job.work")
                  .contains("Job.report")
                  .contains("elector.lead-when-disabled=true");
            });
  }

  @Test
  void disabledWithoutLeaderOnlyMethodsSaysNothing(CapturedOutput output) {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(LeaderElector.class);
          assertThat(context).doesNotHaveBean(ElectorLifecycle.class);
          assertThat(context).doesNotHaveBean(InfoContributor.class);
          assertThat(output.getAll()).doesNotContain(SKIPPED);
        });
  }

  @Test
  void disabledWithTheApplicationsOwnElectorGuardsWithIt(CapturedOutput output) {
    InMemoryLockStore store = InMemoryLockStore.create("own");
    LeaderElector own =
        LeaderElector.create(
            ElectorConfig.newBuilder()
                .lock(store.lockFor("mine"))
                .callbacks(LeaderCallbacks.of(t -> {}, (t, e) -> {}))
                .build());
    try {
      runner
          .withBean(Job.class)
          .withBean(LeaderElector.class, () -> own)
          .run(
              context -> {
                Job job = context.getBean(Job.class);
                job.work();
                assertThat(job.runs()).isZero();
                own.start();
                await().atMost(Duration.ofSeconds(10)).until(own::isLeader);
                job.work();
                assertThat(job.runs()).isEqualTo(1);
                assertThat(job.seen()).isSameAs(own.currentTerm().orElseThrow());
                assertThat(output.getAll()).doesNotContain(SKIPPED);
              });
    } finally {
      own.close();
    }
  }

  @Test
  void leadWhenDisabledIsIgnoredWhileTheElectorIsEnabled() {
    // Nothing changes: the Kubernetes elector and its checks (here: no namespace outside a pod).
    runner
        .withPropertyValues("elector.enabled=true", "elector.lead-when-disabled=true")
        .run(
            context ->
                assertThat(ElectorAutoConfigurationTest.failure(context))
                    .contains("elector.namespace is not set"));
  }

  @Test
  void leadWhenDisabledLeadsAloneWithTheTermAndTheEvents(CapturedOutput output) {
    List<LeadershipEvent> events = new CopyOnWriteArrayList<>();
    runner
        .withBean(Job.class)
        .withBean(
            "listener",
            ApplicationListener.class,
            () -> (ApplicationListener<LeadershipEvent>) events::add)
        .withPropertyValues("elector.lead-when-disabled=true", "elector.identity=laptop")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(output.getAll())
                  .contains(
                      "elector.enabled=false with elector.lead-when-disabled=true: laptop leads"
                          + " my-app alone, "
                          + ALONE)
                  .contains("never for more than one replica")
                  .doesNotContain(SKIPPED);
              LeaderElector elector = context.getBean(LeaderElector.class);
              assertThat(elector.describe()).contains("in-memory lock my-app");
              Job job = context.getBean(Job.class);
              job.work();
              assertThat(job.runs()).as("not before the application is ready").isZero();

              ready(context);
              await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);
              job.work();
              assertThat(job.runs()).isEqualTo(1);
              Term term = elector.currentTerm().orElseThrow();
              assertThat(job.seen()).isSameAs(term);
              assertThat(term.identity()).isEqualTo("laptop");
              await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
              assertThat(events.get(0)).isInstanceOf(LeadershipGrantedEvent.class);
              assertThat(context).hasSingleBean(InfoContributor.class);

              context.close();
              assertThat(term.isActive()).isFalse();
              assertThat(events).hasSize(2);
              assertThat(((LeadershipRevokedEvent) events.get(1)).getReason())
                  .isEqualTo(TermEnd.CLOSED);
            });
  }

  @Test
  void leadWhenDisabledChecksTheTimingsAsWhenEnabled() {
    runner
        .withPropertyValues(
            "elector.lead-when-disabled=true",
            "elector.lease-duration=15",
            "elector.renew-deadline=20s")
        .run(
            context ->
                assertThat(ElectorAutoConfigurationTest.failure(context))
                    .startsWith("Elector cannot start (1 problem):")
                    .contains("elector.lease-duration 15 has no unit"));
    runner
        .withPropertyValues("elector.lead-when-disabled=true", "elector.renew-deadline=20s")
        .run(
            context ->
                assertThat(ElectorAutoConfigurationTest.failure(context))
                    .contains("elector.renew-deadline PT20S must be shorter"));
  }
}
