package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.lock.LeaderLock;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The default watch mode of a backend's Lease locks on a real server, under exactly the shipped
 * Roles: with {@code rbac.yaml} and {@code rbac-shared-watch.yaml} next to it, the electors of
 * default builders share one watch of the namespace's Leases; with only the by-name {@code
 * rbac.yaml} the first list of the collection is refused once, and the electors watch their own
 * Lease and still elect. A backend's subclass says how it connects and builds a lock.
 */
@KubeTest
public abstract class AbstractWatchModeIT {
  private static final String COLLECTION = "/apis/coordination.k8s.io/v1/namespaces/";
  private static final String SHIPPED_LOCK = "elector-leader";

  /** One identity's client of a backend, recording every request it sends. */
  protected interface Connection extends AutoCloseable {
    /** A Lease lock of default watch mode, with a request timeout of {@code requestTimeout}. */
    LeaderLock lock(String namespace, String name, String identity, Duration requestTimeout);

    @Override
    void close();
  }

  /**
   * Connects as {@code who}, adding "METHOD path?query status" of every request to {@code seen}
   * once it is answered.
   */
  protected abstract Connection connect(KubeCluster cluster, KubeIdentity who, List<String> seen)
      throws Exception;

  /**
   * A new identity holding the rules of the shipped Lease manifests {@code files}, applied
   * together, with the lock name of {@code rbac.yaml} replaced by {@code locks} as its header says
   * to.
   */
  private static KubeIdentity identity(
      KubeCluster cluster, KubeNamespace ns, String name, List<String> locks, String... files)
      throws Exception {
    List<V1PolicyRule> rules = new ArrayList<>();
    for (String file : files) {
      rules.addAll(
          KubeCluster.roleRules(
              Path.of(System.getProperty("elector.repository.root", ".."), "deploy/lease", file)));
    }
    for (V1PolicyRule rule : rules) {
      if (List.of(SHIPPED_LOCK).equals(rule.getResourceNames())) {
        rule.setResourceNames(locks);
      }
    }
    KubeIdentity who = cluster.newIdentity(ns, name);
    cluster.grant(who, ns, rules);
    return who;
  }

  private static LeaderElector elector(
      Connection connection, String namespace, String name, String identity) {
    return LeaderElector.start(
        ElectorConfig.newBuilder()
            .lock(connection.lock(namespace, name, identity, Duration.ofSeconds(4)))
            .callbacks(LeaderCallbacks.of(term -> {}, (term, why) -> {}))
            .leaseDuration(Duration.ofSeconds(12))
            .renewDeadline(Duration.ofSeconds(8))
            .retryPeriod(Duration.ofSeconds(1))
            .build()); // no list times out on a busy machine (it would be sent again)
  }

  private static long threads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix))
        .count();
  }

  private static boolean isWatch(String request) {
    return request.contains("watch=true");
  }

  private static boolean isCollectionList(String request) {
    return request.startsWith("GET " + COLLECTION)
        && request.contains("/leases")
        && !request.contains("/leases/")
        && !isWatch(request);
  }

  private static long byNameWatches(List<String> seen) {
    return seen.stream()
        .filter(r -> isWatch(r) && r.contains("fieldSelector") && r.endsWith(" 200"))
        .count();
  }

  @Test
  void electorsOfDefaultBuildersShareOneWatchOfTheNamespacesLeases(KubeCluster cluster)
      throws Exception {
    KubeNamespace ns = cluster.createNamespace(getClass().getSimpleName() + "-shared");
    List<String> seen = new CopyOnWriteArrayList<>();
    // Threads of earlier tests may still be ending: count only what could be this test's.
    String shared = "elector-shared-watch-" + ns.name() + "-";
    long ownBefore = threads("elector-watch-lock-");
    long sharedBefore = threads(shared);
    List<LeaderElector> electors = new ArrayList<>();
    int leases = 10;
    List<String> locks = new ArrayList<>();
    for (int i = 0; i < leases; i++) {
      locks.add("lock-" + i);
    }
    KubeIdentity sharer =
        identity(cluster, ns, "sharer", locks, "rbac.yaml", "rbac-shared-watch.yaml");
    try (Connection connection = connect(cluster, sharer, seen)) {
      try {
        for (int i = 0; i < leases; i++) {
          for (String id : List.of("a", "b")) {
            electors.add(elector(connection, ns.name(), locks.get(i), id + i));
          }
        }
        Await.until(
            "one leader per Lease",
            Duration.ofSeconds(20),
            () -> electors.stream().filter(LeaderElector::isLeader).count() == leases);
        Await.until(
            "the followers watch",
            Duration.ofSeconds(10),
            () -> seen.stream().anyMatch(r -> isWatch(r) && r.endsWith(" 200")));

        assertEquals(1, threads(shared) - sharedBefore, "one shared thread");
        assertTrue(threads("elector-watch-lock-") <= ownBefore, "no per-lock watch threads");
        List<String> watches = seen.stream().filter(AbstractWatchModeIT::isWatch).toList();
        assertEquals(1, watches.size(), "one watch for " + leases * 2 + " electors: " + watches);
        assertTrue(!watches.get(0).contains("fieldSelector"), watches.get(0));
        assertEquals(
            1,
            seen.stream().filter(AbstractWatchModeIT::isCollectionList).count(),
            "one list of the collection: "
                + seen.stream().filter(r -> r.startsWith("GET")).toList());
        assertTrue(seen.stream().noneMatch(r -> r.endsWith(" 403")), "no 403: " + seen);
        assertEquals(1, reviews(seen), "one access review before the list: " + seen);
      } finally {
        electors.forEach(LeaderElector::close);
      }
    }
  }

  private static long reviews(List<String> seen) {
    return seen.stream()
        .filter(r -> r.startsWith("POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews"))
        .count();
  }

  @Test
  void anIdentityWithoutListOnTheNamespaceFallsBackWithoutA403AndStillElects(KubeCluster cluster)
      throws Exception {
    KubeNamespace ns = cluster.createNamespace(getClass().getSimpleName() + "-by-name");
    List<String> seen = new CopyOnWriteArrayList<>();
    List<LeaderElector> electors = new ArrayList<>();
    // rbac.yaml allows the lock "elector-leader" by name only
    KubeIdentity byName = identity(cluster, ns, "by-name", List.of(SHIPPED_LOCK), "rbac.yaml");
    try (Connection connection = connect(cluster, byName, seen)) {
      try {
        for (String id : List.of("a", "b", "c")) {
          electors.add(elector(connection, ns.name(), SHIPPED_LOCK, id));
        }
        Await.until(
            "one leader",
            Duration.ofSeconds(15),
            () -> electors.stream().filter(LeaderElector::isLeader).count() == 1);
        Await.until(
            "the followers watch the Lease by name",
            Duration.ofSeconds(15),
            () -> byNameWatches(seen) >= 2);
        LeaderElector leader =
            electors.stream().filter(LeaderElector::isLeader).findFirst().orElseThrow();

        // A graceful handover is seen through the per-lock watches.
        leader.close();
        Await.until(
            "a follower takes over",
            Duration.ofSeconds(10),
            () -> electors.stream().filter(e -> e != leader && e.isLeader()).count() == 1);
        // A lock built later goes to its own watch at once.
        electors.add(elector(connection, ns.name(), SHIPPED_LOCK, "d"));
        Await.until(
            "the late elector follows by watch",
            Duration.ofSeconds(15),
            () -> byNameWatches(seen) >= 3);

        // The access review said no, so the collection was never listed: no refused request.
        List<String> refused = seen.stream().filter(r -> r.endsWith(" 403")).toList();
        assertEquals(List.of(), refused, "no 403");
        assertEquals(1, reviews(seen), "one access review: " + seen);
        assertEquals(
            0,
            seen.stream().filter(r -> isCollectionList(r) && !r.contains("fieldSelector")).count(),
            "no list of the whole collection: " + seen);
        assertTrue(
            seen.stream().noneMatch(r -> isWatch(r) && !r.contains("fieldSelector")),
            "no watch of the whole collection after the refusal");
      } finally {
        electors.forEach(LeaderElector::close);
      }
    }
  }
}
