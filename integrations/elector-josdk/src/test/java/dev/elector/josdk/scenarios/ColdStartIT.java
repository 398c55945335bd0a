package dev.elector.josdk.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.josdk.TermScopedOperator;
import dev.elector.kube.KubeLock;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeTest;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The price of a fresh operator per term: the time from the moment a replica starts leading to its
 * first reconcile, and to the reconcile of every custom resource, with 1, 100 and 1,000 Greetings,
 * for {@link TermScopedOperator} (a cold operator: it lists the Greetings when its term starts) and
 * for JOSDK's own leader election (whose follower synced its informers before it led, and only
 * starts processing events). Both are JOSDK 5.2.3 operators with the same reconciler, which only
 * notes the time, on the same API server, taking over the same way: a placeholder leader on the
 * same Lease releases it once the candidate is running.
 *
 * <p>Figures are printed as {@code FIGURE cold-start ...} lines and appended to
 * target/josdk-figures.txt. In CI each size runs once; {@code -Delector.josdk.coldstart.rounds=5}
 * repeats each and prints the medians. The assertions hold both operators to what a takeover must
 * do: nothing reconciled before leading, every Greeting reconciled after it.
 */
@KubeTest
class ColdStartIT {
  private static final int ROUNDS = Integer.getInteger("elector.josdk.coldstart.rounds", 1);
  private static final List<Integer> SIZES = List.of(1, 100, 1000);
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(500);

  /** How a candidate runs its reconcilers while it leads. */
  private enum Kind {
    /** elector-josdk: a fresh operator per term. */
    ELECTOR,
    /** JOSDK's own election: one operator, informers synced while following. */
    JOSDK
  }

  /** When the candidate started leading and when it reconciled each Greeting. */
  private static final class Timeline {
    volatile long leading = -1;
    final Map<String, Long> reconciled = new ConcurrentHashMap<>();

    long firstReconcile() {
      return reconciled.values().stream().mapToLong(Long::longValue).min().orElseThrow();
    }

    long lastReconcile() {
      return reconciled.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }
  }

  /** Notes the first reconcile of each Greeting; writes nothing. */
  @ControllerConfiguration(name = "cold-start")
  private static final class TimingReconciler implements Reconciler<Greeting> {
    private final Timeline timeline;

    TimingReconciler(Timeline timeline) {
      this.timeline = timeline;
    }

    @Override
    public UpdateControl<Greeting> reconcile(Greeting greeting, Context<Greeting> context) {
      timeline.reconciled.putIfAbsent(greeting.getMetadata().getName(), System.nanoTime());
      return UpdateControl.noUpdate();
    }
  }

  @Test
  void takeoverToFirstReconcileWithAColdAndAWarmOperator(KubeCluster cluster) throws Exception {
    try (Cluster api = new Cluster(cluster)) {
      for (int size : SIZES) {
        String ns = cluster.createNamespace("cold-start-" + size).name();
        api.createMany(ns, "greeting-", size);
        for (Kind kind : Kind.values()) {
          long[] first = new long[ROUNDS];
          long[] all = new long[ROUNDS];
          for (int round = 0; round < ROUNDS; round++) {
            String lease = "cold-start-" + kind.name().toLowerCase(Locale.ROOT) + "-" + round;
            Timeline t = takeOver(cluster, ns, lease, kind, size);
            assertEquals(size, t.reconciled.size(), kind + ": every Greeting reconciled");
            assertTrue(
                t.firstReconcile() >= t.leading,
                kind + ": nothing reconciled before the candidate led");
            first[round] = t.firstReconcile() - t.leading;
            all[round] = t.lastReconcile() - t.leading;
          }
          String scenario = "cold-start " + kind.name().toLowerCase(Locale.ROOT) + " " + size;
          Figures.print(
              scenario, "leading-to-first-reconcile", Figures.ms(median(first)) + roundsNote());
          Figures.print(
              scenario, "leading-to-all-reconciled", Figures.ms(median(all)) + roundsNote());
        }
      }
    }
  }

  /**
   * A placeholder leads the Lease; the candidate starts (a JOSDK follower syncs its informers) and
   * waits; the placeholder releases; the candidate leads and reconciles every Greeting.
   */
  private static Timeline takeOver(
      KubeCluster cluster, String ns, String lease, Kind kind, int size) throws Exception {
    Timeline timeline = new Timeline();
    try (KubernetesClient placeholderClient = client(cluster);
        KubernetesClient candidateClient = client(cluster)) {
      LeaderElector placeholder =
          LeaderElector.start(
              timings(ElectorConfig.newBuilder())
                  .lock(lock(placeholderClient, ns, lease, "placeholder"))
                  .callbacks(LeaderCallbacks.of(term -> {}, (term, end) -> {}))
                  .build());
      try {
        Await.until("the placeholder leads", Duration.ofSeconds(30), placeholder::isLeader);
        AutoCloseable candidate =
            kind == Kind.ELECTOR
                ? coldCandidate(candidateClient, ns, lease, timeline)
                : warmCandidate(candidateClient, ns, lease, timeline);
        try {
          assertEquals(0, timeline.reconciled.size(), kind + ": a follower reconciles nothing");
          placeholder.close(); // releases the Lease
          Await.until(
              kind + " candidate reconciles all " + size + " Greetings",
              Duration.ofMinutes(2),
              () -> timeline.reconciled.size() == size);
        } finally {
          candidate.close();
        }
      } finally {
        placeholder.close();
      }
    }
    return timeline;
  }

  private static AutoCloseable coldCandidate(
      KubernetesClient client, String ns, String lease, Timeline timeline) {
    TermScopedOperator operator =
        TermScopedOperator.newBuilder()
            .client(client)
            .lock(lock(client, ns, lease, "candidate"))
            .electorConfig(ColdStartIT::timings)
            .reconcilers(
                (o, term) ->
                    o.register(new TimingReconciler(timeline), c -> c.settingNamespace(ns)))
            .listener(
                new TermScopedOperator.Listener() {
                  @Override
                  public void operatorStarting(dev.elector.Term term) {
                    timeline.leading = System.nanoTime();
                  }
                })
            .start();
    return operator;
  }

  /** JOSDK's own election as JOSDK documents it; start() returns once its informers synced. */
  private static AutoCloseable warmCandidate(
      KubernetesClient client, String ns, String lease, Timeline timeline) {
    Operator operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withLeaderElectionConfiguration(
                        LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(lease)
                            .withLeaseNamespace(ns)
                            .withIdentity("candidate")
                            .withLeaseDuration(LEASE)
                            .withRenewDeadline(RENEW)
                            .withRetryPeriod(RETRY)
                            .withExitOnStopLeading(false)
                            .withLeaderCallbacks(
                                new io.fabric8.kubernetes.client.extended.leaderelection
                                    .LeaderCallbacks(
                                    () -> timeline.leading = System.nanoTime(), () -> {}, id -> {}))
                            .build()));
    operator.register(new TimingReconciler(timeline), c -> c.settingNamespace(ns));
    operator.start();
    return operator::stop;
  }

  private static ElectorConfig.Builder timings(ElectorConfig.Builder b) {
    return b.leaseDuration(LEASE).renewDeadline(RENEW).retryPeriod(RETRY);
  }

  private static KubeLock lock(KubernetesClient client, String ns, String lease, String identity) {
    return Fabric8LeaseLock.newBuilder(client).namespace(ns).name(lease).identity(identity).build();
  }

  private static KubernetesClient client(KubeCluster cluster) throws Exception {
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(cluster.adminKubeconfigYaml()))
        .build();
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String roundsNote() {
    return ROUNDS == 1 ? " (one round)" : " (median of " + ROUNDS + " rounds)";
  }
}
