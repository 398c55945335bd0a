package dev.elector.josdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.LeaderCallbacks;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LockFailure;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.VirtualTime;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A fresh operator per term, in virtual time: built, given its reconcilers and started when a term
 * starts, stopped when it ends (renew failures, close) before the lock is free for anyone else. The
 * operators are JOSDK's own class with start and stop recorded instead of reaching a cluster.
 */
class TermScopedOperatorTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(500);

  private final VirtualTime time = VirtualTime.withSeed(11);
  private final InMemoryLockStore store = InMemoryLockStore.create("greetings");
  private final KubernetesClient client =
      new KubernetesClientBuilder()
          .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
          .build();
  private final List<String> transcript = new CopyOnWriteArrayList<>();
  private final List<RecordingOperator> operators = new ArrayList<>();

  /** JOSDK's operator, its start and stop recorded with the virtual time. */
  private final class RecordingOperator extends Operator {
    RecordingOperator(Consumer<ConfigurationServiceOverrider> overrider) {
      super(overrider);
    }

    @Override
    public synchronized void start() {
      transcript.add("start@" + time.elapsed().toMillis());
    }

    @Override
    public void stop() {
      transcript.add("stop@" + time.elapsed().toMillis());
    }
  }

  private final TermScopedOperator.Listener listener =
      new TermScopedOperator.Listener() {
        @Override
        public void operatorStarting(Term term) {
          transcript.add("starting " + term.fencingToken());
        }

        @Override
        public void operatorStarted(Term term) {
          transcript.add("started " + term.fencingToken());
        }

        @Override
        public void operatorStopping(Term term, TermEnd reason) {
          transcript.add("stopping " + term.fencingToken() + " " + reason);
        }

        @Override
        public void operatorStopped(Term term, TermEnd reason) {
          transcript.add("stopped " + term.fencingToken() + " " + reason);
        }
      };

  private TermScopedOperator.Builder builder(FaultyLock lock) {
    return TermScopedOperator.newBuilder()
        .client(client)
        .lock(lock)
        .electorConfig(
            b -> time.configure(b).leaseDuration(LEASE).renewDeadline(RENEW).retryPeriod(RETRY))
        .reconcilers((operator, term) -> transcript.add("register " + term.fencingToken()))
        .listener(listener)
        .operators(
            overrider -> {
              RecordingOperator operator = new RecordingOperator(overrider);
              operators.add(operator);
              return operator;
            });
  }

  @AfterEach
  void closeClient() {
    client.close();
  }

  @Test
  void eachTermRunsAFreshOperatorThatStopsBeforeTheLeaseIsFreeForAnother() {
    FaultyLock lock = FaultyLock.wrap(store.lockFor("a"), time);
    TermScopedOperator scoped = builder(lock).start();
    time.advanceUntil(() -> scoped.elector().isLeader(), Duration.ofSeconds(5));
    Term first = scoped.currentTerm().orElseThrow();
    assertEquals(
        List.of(
            "starting " + first.fencingToken(),
            "register " + first.fencingToken(),
            "start@0",
            "started " + first.fencingToken()),
        transcript);

    transcript.clear();
    lock.failAll(LockFailure.Kind.TIMEOUT); // renewals fail: the term ends at its deadline
    long failedAt = time.elapsed().toMillis();
    time.advanceUntil(() -> first.endReason().isPresent(), Duration.ofSeconds(10));
    time.advance(Duration.ofMillis(1));
    assertEquals(3, transcript.size(), transcript.toString());
    assertEquals(
        "stopping " + first.fencingToken() + " RENEW_DEADLINE_EXCEEDED", transcript.get(0));
    long stoppedAt = Long.parseLong(transcript.get(1).substring("stop@".length()));
    assertTrue(
        stoppedAt <= failedAt + RENEW.toMillis(),
        "stopped at " + stoppedAt + " ms, within renewDeadline of the last renewal");
    assertTrue(scoped.currentTerm().isEmpty());

    transcript.clear();
    lock.heal(); // the lease is still ours on the store: a new term, a new operator
    time.advanceUntil(() -> scoped.elector().isLeader(), Duration.ofSeconds(10));
    Term second = scoped.currentTerm().orElseThrow();
    assertTrue(second.fencingToken() > first.fencingToken());
    assertEquals(2, operators.size(), "a fresh operator for the second term");
    assertTrue(transcript.contains("started " + second.fencingToken()), transcript.toString());

    transcript.clear();
    time.close(scoped.elector()); // close: the operator stops, then the lease is released
    scoped.close();
    assertEquals(
        List.of(
            "stopping " + second.fencingToken() + " CLOSED",
            "stop@" + time.elapsed().toMillis(),
            "stopped " + second.fencingToken() + " CLOSED"),
        transcript);
    assertTrue(store.current().orElseThrow().isReleased());
  }

  @Test
  void theOperatorIsJosdksWithoutItsElectionAndKeepsTheClientOpen() {
    TermScopedOperator scoped = builder(FaultyLock.wrap(store.lockFor("a"), time)).start();
    time.advanceUntil(() -> scoped.elector().isLeader(), Duration.ofSeconds(5));
    var config = operators.get(0).getConfigurationService();
    assertTrue(config.getLeaderElectionConfiguration().isEmpty());
    assertFalse(config.closeClientOnStop());
    assertFalse(config.stopOnInformerErrorDuringStartup());
    assertSame(client, config.getKubernetesClient());
    assertEquals(LEASE.minus(RENEW).dividedBy(2), config.reconciliationTerminationTimeout());
    time.close(scoped.elector());
  }

  @Test
  void aTermThatEndsBeforeItsOperatorStartsNeverStartsIt() {
    FaultyLock lock = FaultyLock.wrap(store.lockFor("a"), time);
    List<Term> seen = new ArrayList<>();
    TermScopedOperator scoped =
        builder(lock)
            .reconcilers(
                (operator, term) -> {
                  seen.add(term);
                  lock.failAll(LockFailure.Kind.TIMEOUT);
                  time.stall(LEASE); // the set-up outlives the term's deadline
                })
            .start();
    time.advanceUntil(() -> !seen.isEmpty(), Duration.ofSeconds(5));
    time.advanceUntil(() -> seen.get(0).endReason().isPresent(), LEASE);
    time.advance(Duration.ofMillis(1));
    assertFalse(transcript.stream().anyMatch(s -> s.startsWith("start@")), transcript.toString());
    assertTrue(transcript.stream().anyMatch(s -> s.startsWith("stop@")), transcript.toString());
    time.close(scoped.elector());
  }

  @Test
  void aThrowingListenerDoesNotKeepTheOperatorRunning() {
    TermScopedOperator scoped =
        builder(FaultyLock.wrap(store.lockFor("a"), time))
            .listener(
                new TermScopedOperator.Listener() {
                  @Override
                  public void operatorStopping(Term term, TermEnd reason) {
                    throw new IllegalStateException("listener failure");
                  }
                })
            .start();
    time.advanceUntil(() -> scoped.elector().isLeader(), Duration.ofSeconds(5));
    time.close(scoped.elector());
    assertEquals(
        List.of("start@0", "stop@0"), transcript.stream().filter(s -> s.startsWith("st")).toList());
  }

  @Test
  void buildNamesEveryMissingSettingAndItsFix() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TermScopedOperator.newBuilder().build());
    assertEquals(
        "client is missing; set client(kubernetesClient), the one the lock uses;"
            + " lock is missing; set lock(Fabric8LeaseLock.newBuilder(client)...build());"
            + " reconcilers are missing; set reconcilers((operator, term) ->"
            + " operator.register(new MyReconciler(term)))",
        e.getMessage());
  }

  @Test
  void buildRejectsJosdksOwnElection() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                builder(FaultyLock.wrap(store.lockFor("a"), time))
                    .operatorConfig(
                        o ->
                            o.withLeaderElectionConfiguration(
                                LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(
                                        "other")
                                    .build()))
                    .build());
    assertTrue(e.getMessage().contains("remove withLeaderElectionConfiguration"), e.getMessage());
  }

  @Test
  void buildRejectsCallbacksOrALockSetInTheElectorConfig() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                builder(FaultyLock.wrap(store.lockFor("a"), time))
                    .electorConfig(
                        b ->
                            b.lock(store.lockFor("b"))
                                .callbacks(LeaderCallbacks.of(t -> {}, (t, r) -> {})))
                    .build());
    assertEquals(
        "electorConfig sets a lock; set it with TermScopedOperator.Builder.lock;"
            + " electorConfig sets callbacks, which run the term's operator here; use"
            + " TermScopedOperator.Builder.listener for what should happen at a term's start and"
            + " end",
        e.getMessage());
  }

  @Test
  void buildRejectsAStopTimeoutThatOutlastsTheWindowBeforeAnotherLeads() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                builder(FaultyLock.wrap(store.lockFor("a"), time))
                    .reconcileStopTimeout(Duration.ofSeconds(1))
                    .build());
    assertEquals(
        "reconcileStopTimeout PT1S must be shorter than leaseDuration - renewDeadline PT1S, or an"
            + " operator may still reconcile when another replica leads; lower"
            + " reconcileStopTimeout or raise leaseDuration",
        e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> TermScopedOperator.newBuilder().reconcileStopTimeout(Duration.ZERO));
  }

  @Test
  void electorConfigProblemsComeFromElectorWithTheirFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                builder(FaultyLock.wrap(store.lockFor("a"), time))
                    .electorConfig(b -> b.leaseDuration(Duration.ofSeconds(2)))
                    .build());
    assertTrue(e.getMessage().contains("renewDeadline"), e.getMessage());
  }
}
