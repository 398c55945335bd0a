package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.WatchPacer;
import dev.elector.testenv.Await;
import dev.elector.testenv.net.HttpFaults;
import dev.elector.testenv.net.HttpFaults.Scope;
import dev.elector.testenv.net.HttpFaults.WatchFault;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The watch bound on the real API server: a follower whose list and watch requests meet a hostile
 * server or proxy (through {@link HttpFaults} on its client) sends at most {@code 4 + T / 1 s} of
 * them in any interval T, and still sees the leader change, by polling where the watch is useless.
 * Without the bound, a watch answered with an empty stream made about 1,200 requests a second here.
 */
@KubeTest
class WatchBoundIT {
  /** Renewals of the leader that make up the measured window: about 8 s at a 0.5 s retry. */
  private static final int WINDOW_RENEWALS = 16;

  private final KubeCluster cluster;
  private final KubeNamespace namespace;

  WatchBoundIT(KubeCluster cluster, KubeNamespace namespace) {
    this.cluster = cluster;
    this.namespace = namespace;
  }

  @Test
  void aWatchAnsweredWithAnEmptyStreamForever() throws Exception {
    Measured m = measure("empty-stream", false, f -> f.watches(WatchFault.EMPTY_STREAM));

    m.assertWithinTheBound();
  }

  @Test
  void everyWatchAnswered410GoneRightAfterTheList() throws Exception {
    Measured m = measure("gone", false, f -> f.watches(WatchFault.GONE));

    m.assertWithinTheBound();
  }

  @Test
  void theStreamCutAfterEveryEvent() throws Exception {
    Measured m = measure("cut", false, f -> f.watches(WatchFault.CUT_AFTER_FIRST_EVENT));

    m.assertWithinTheBound();
    assertTrue(m.requests >= 4, "a watch that brings events keeps reconnecting: " + m);
  }

  @Test
  void everyListAndWatchAnswered500() throws Exception {
    Measured m = measure("errors", false, f -> f.scope(Scope.LISTS_AND_WATCHES).fail(1, 500));

    m.assertWithinTheBound();
  }

  @Test
  void everyListAndWatchAnswered429WithRetryAfterWhichIsHonoured() throws Exception {
    Duration retryAfter = Duration.ofSeconds(3);
    Measured m =
        measure("throttled", false, f -> f.scope(Scope.LISTS_AND_WATCHES).throttle(1, retryAfter));

    m.assertWithinTheBound();
    long honoured = 1 + m.window.toNanos() / retryAfter.toNanos() + 1;
    assertTrue(m.requests <= honoured, "Retry-After: 3 allows at most " + honoured + ": " + m);
  }

  @Test
  void theSharedWatchKeepsTheSameBound() throws Exception {
    Measured m = measure("shared", true, f -> f.watches(WatchFault.EMPTY_STREAM));

    m.assertWithinTheBound();
  }

  /** The list and watch requests of the follower over the window, and the window. */
  private record Measured(String scenario, long requests, Duration window) {
    void assertWithinTheBound() {
      long bound = WatchPacer.bound(window);
      System.out.printf(
          "watch bound: %s: %d list and watch requests in %d ms (bound %d)%n",
          scenario, requests, window.toMillis(), bound);
      assertTrue(
          requests <= bound,
          scenario
              + ": "
              + requests
              + " list and watch requests in "
              + window.toMillis()
              + " ms, bound "
              + bound);
    }
  }

  /**
   * A leader on a clean client and a follower whose client carries {@code fault}; counts the
   * follower's list and watch requests while the leader renews {@link #WINDOW_RENEWALS} times, then
   * closes the leader and waits for the follower to take over.
   */
  private Measured measure(String name, boolean shared, Consumer<HttpFaults> fault)
      throws Exception {
    KubeIdentity leaderId = cluster.newIdentity(namespace, name + "-leader");
    KubeIdentity followerId = cluster.newIdentity(namespace, name + "-follower");
    List<V1PolicyRule> leases =
        List.of(
            new V1PolicyRule()
                .apiGroups(List.of("coordination.k8s.io"))
                .resources(List.of("leases"))
                .verbs(List.of("get", "list", "watch", "create", "update", "patch")));
    cluster.grant(leaderId, namespace, leases);
    cluster.grant(followerId, namespace, leases);
    HttpFaults faults = HttpFaults.withSeed(13).installOn(followerId.client());
    fault.accept(faults);

    LeaderElector leader = elector(leaderId, name, "leader", false);
    Await.until("the leader leads", Duration.ofSeconds(20), leader::isLeader);
    try (LeaderElector follower = elector(followerId, name, "follower", shared)) {
      Await.until(
          "the follower sees the leader",
          Duration.ofSeconds(10),
          () -> follower.observedLeader().filter("leader"::equals).isPresent());

      long before = faults.lists() + faults.watches();
      long started = System.nanoTime();
      long renewalsBefore = leader.stats().totalCalls();
      Await.until(
          WINDOW_RENEWALS + " renewals",
          Duration.ofSeconds(30),
          () -> leader.stats().totalCalls() - renewalsBefore >= WINDOW_RENEWALS);
      long requests = faults.lists() + faults.watches() - before;
      Duration window = Duration.ofNanos(System.nanoTime() - started);

      leader.close();
      Await.until(
          "the follower takes over after the leader's release",
          Duration.ofSeconds(10),
          follower::isLeader);
      return new Measured(name, requests, window);
    } finally {
      leader.close();
    }
  }

  private LeaderElector elector(
      KubeIdentity who, String lockName, String identity, boolean shared) {
    KubeLock lock =
        LeaseLock.newBuilder(who.client())
            .namespace(namespace.name())
            .name(lockName)
            .identity(identity)
            .sharedWatch(shared)
            .build();
    return LeaderElector.start(
        ElectorConfig.newBuilder()
            .lock(lock)
            .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .retryPeriod(Duration.ofMillis(500))
            .build());
  }
}
