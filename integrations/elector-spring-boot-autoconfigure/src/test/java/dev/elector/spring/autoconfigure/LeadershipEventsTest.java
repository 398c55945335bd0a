package dev.elector.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.spring.CurrentTerm;
import dev.elector.spring.LeaderOnly;
import dev.elector.spring.LeadershipGrantedEvent;
import dev.elector.spring.LeadershipRevokedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.SmartLifecycleRoleController;

/**
 * {@code @LeaderOnly} and the Spring Integration events, on an application's own elector over an
 * in-memory lock.
 */
class LeadershipEventsTest {
  private final InMemoryLockStore store = InMemoryLockStore.create("jobs");
  private final LeaderElector elector =
      LeaderElector.create(
          ElectorConfig.newBuilder()
              .lock(store.lockFor("me"))
              .callbacks(LeaderCallbacks.of(t -> {}, (t, e) -> {}))
              .leaseDuration(Duration.ofSeconds(15))
              .build());

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ElectorAutoConfiguration.class))
          .withBean(LeaderElector.class, () -> elector)
          .withPropertyValues("elector.role=cluster");

  @AfterEach
  void close() {
    elector.close();
  }

  /** A bean with leader-only methods. */
  static class Job {
    private final AtomicInteger runs = new AtomicInteger();
    private volatile @Nullable Term seenAsParameter;
    private volatile @Nullable Term seenAsCurrent;

    // The test reads the state through methods: fields of a CGLIB proxy are its own.
    public int runs() {
      return runs.get();
    }

    public @Nullable Term seenAsParameter() {
      return seenAsParameter;
    }

    public @Nullable Term seenAsCurrent() {
      return seenAsCurrent;
    }

    @LeaderOnly
    public void work() {
      runs.incrementAndGet();
      seenAsCurrent = CurrentTerm.get().orElse(null);
    }

    @LeaderOnly
    public @Nullable String report(@Nullable Term term) {
      seenAsParameter = term;
      return "done in term " + (term == null ? "none" : term.fencingToken());
    }

    public boolean unguarded() {
      return true;
    }
  }

  /** A leader-only method cannot return a primitive: what would a follower return? */
  static class BadJob {
    @LeaderOnly
    public int count() {
      return 1;
    }
  }

  private Term lead() {
    elector.start();
    await().atMost(Duration.ofSeconds(10)).until(elector::isLeader);
    return elector.currentTerm().orElseThrow();
  }

  @Test
  void leaderOnlyMethodsSkipOnAFollowerAndRunWithTheTermOnTheLeader() {
    runner
        .withBean(Job.class)
        .run(
            context -> {
              Job job = context.getBean(Job.class);
              job.work();
              assertThat(job.runs()).isZero();
              assertThat(job.report(null)).isNull();
              assertThat(job.unguarded()).isTrue();

              Term term = lead();
              job.work();
              assertThat(job.runs()).isEqualTo(1);
              assertThat(job.seenAsCurrent()).isSameAs(term);
              assertThat(job.report(null)).isEqualTo("done in term " + term.fencingToken());
              assertThat(job.seenAsParameter()).isSameAs(term);
              assertThat(CurrentTerm.get()).isEmpty();

              elector.close();
              assertThat(term.isActive()).isFalse();
              job.work();
              assertThat(job.runs()).isEqualTo(1);
            });
  }

  @Test
  void aPrimitiveResultIsRefusedAtStartUp() {
    runner
        .withBean(Job.class)
        .withBean(BadJob.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("@LeaderOnly method")
                    .hasMessageContaining("returns int"));
  }

  @Test
  void springIntegrationEventsFollowTheTerm() {
    List<AbstractLeaderEvent> seen = new CopyOnWriteArrayList<>();
    runner
        .withBean(
            "integrationListener",
            ApplicationListener.class,
            () -> (ApplicationListener<AbstractLeaderEvent>) seen::add)
        .run(
            context -> {
              Term term = lead();
              context.publishEvent(new LeadershipGrantedEvent(elector, term));
              assertThat(seen).hasSize(1);
              OnGrantedEvent granted = (OnGrantedEvent) seen.get(0);
              assertThat(granted.getRole()).isEqualTo("cluster");
              assertThat(granted.getContext().isLeader()).isTrue();
              assertThat(granted.getContext().getRole()).isEqualTo("cluster");

              granted.getContext().yield(); // steps down and stays a candidate
              assertThat(granted.getContext().isLeader()).isFalse();
              assertThat(term.endReason()).contains(TermEnd.STEPPED_DOWN);
              assertThat(elector.stats().healthy()).isTrue();
              granted.getContext().yield(); // an ended term's context changes nothing
              assertThat(elector.stats().termsEnded(TermEnd.STEPPED_DOWN)).isEqualTo(1);

              context.publishEvent(new LeadershipRevokedEvent(elector, term, TermEnd.STEPPED_DOWN));
              assertThat(seen).hasSize(2);
              assertThat(seen.get(1)).isInstanceOf(OnRevokedEvent.class);
              elector.close();
            });
  }

  @Test
  void smartLifecycleRoleControllerStartsAndStopsTheRolesEndpoints() {
    AtomicInteger starts = new AtomicInteger();
    AtomicInteger stops = new AtomicInteger();
    SmartLifecycle endpoint =
        new SmartLifecycle() {
          private volatile boolean running;

          @Override
          public void start() {
            running = true;
            starts.incrementAndGet();
          }

          @Override
          public void stop() {
            running = false;
            stops.incrementAndGet();
          }

          @Override
          public boolean isRunning() {
            return running;
          }

          @Override
          public boolean isAutoStartup() {
            return false;
          }
        };
    runner
        .withBean(
            SmartLifecycleRoleController.class,
            () -> new SmartLifecycleRoleController(List.of("cluster"), List.of(endpoint)))
        .run(
            context -> {
              Term term = lead();
              context.publishEvent(new LeadershipGrantedEvent(elector, term));
              assertThat(endpoint.isRunning()).isTrue();
              elector.close();
              context.publishEvent(new LeadershipRevokedEvent(elector, term, TermEnd.CLOSED));
              assertThat(endpoint.isRunning()).isFalse();
              assertThat(starts).hasValue(1);
              assertThat(stops).hasValue(1);
            });
  }

  @Test
  void noIntegrationEventsWithoutSpringIntegrationOrWhenOff() {
    runner
        .withClassLoader(new FilteredClassLoader("org.springframework.integration"))
        .run(context -> assertThat(context).doesNotHaveBean("electorIntegrationEvents"));
    runner
        .withPropertyValues("elector.integration-events=false")
        .run(context -> assertThat(context).doesNotHaveBean("electorIntegrationEvents"));
    runner.run(context -> assertThat(context).hasBean("electorIntegrationEvents"));
  }
}
