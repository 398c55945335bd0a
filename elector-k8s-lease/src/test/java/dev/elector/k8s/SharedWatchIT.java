package dev.elector.k8s;

import static dev.elector.k8s.WatchRecords.holderOf;
import static dev.elector.k8s.WatchRecords.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.kube.KubeLock;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code sharedWatch(true)} on a real server: many locks, one watch and one thread; each lock hears
 * only about its own object; a late joiner gets the current state at once; the thread ends with the
 * last subscriber; without namespace-wide list and watch the failure names the rule.
 */
@KubeTest
class SharedWatchIT {
  /** The timeout of a lock call made by the test itself: long, the test is not about time. */
  private static final Duration CALL = Duration.ofSeconds(30);

  private static KubeLock lock(
      io.kubernetes.client.openapi.ApiClient client, String namespace, String name) {
    return LeaseLock.newBuilder(client)
        .namespace(namespace)
        .name(name)
        .identity("me")
        .requestTimeout(Duration.ofSeconds(2))
        .sharedWatch(true)
        .build();
  }

  /** An identity in {@code own} with exactly the shipped by-name Role (no namespace-wide list). */
  private static KubeIdentity byNameIdentity(KubeCluster cluster, KubeNamespace own)
      throws Exception {
    KubeIdentity restricted = cluster.newIdentity(own, "by-name");
    cluster.grant(
        restricted, own, KubeCluster.roleRules(Path.of("..", "deploy", "lease", "rbac.yaml")));
    return restricted;
  }

  /**
   * The live shared watch threads of {@code namespace} that are not in {@code before}. The
   * namespace is one per test class, and the thread of an earlier test of the class may still be
   * ending, since cancelling a watch does not wait for its thread: a test counts only the threads
   * that started after it sampled {@code before}.
   */
  private static List<Thread> sharedWatchThreadsSince(String namespace, Set<Thread> before) {
    return sharedWatchThreads(namespace).stream().filter(t -> !before.contains(t)).toList();
  }

  private static Set<Thread> sharedWatchThreads(String namespace) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("elector-shared-watch-" + namespace + "-"))
        .filter(Thread::isAlive)
        .collect(Collectors.toSet());
  }

  @Test
  void manyLocksShareOneThreadAndEachHearsOnlyItsOwnObject(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    int count = 20;
    List<KubeLock> locks = new ArrayList<>();
    Map<String, List<LockRead>> heard = new ConcurrentHashMap<>();
    List<Closeable> subscriptions = new ArrayList<>();
    Set<Thread> threadsBefore = sharedWatchThreads(namespace.name());
    for (int i = 0; i < count; i++) {
      KubeLock lock = lock(cluster.admin(), namespace.name(), "shared-" + i);
      List<LockRead> events = new CopyOnWriteArrayList<>();
      heard.put(lock.name(), events);
      locks.add(lock);
      subscriptions.add(lock.watch(events::add).orElseThrow());
    }
    try {
      // The watch's thread starts asynchronously: it is counted once it has delivered to every
      // subscriber, and every subscriber has been served by then.
      Await.until(
          "every lock hears that its object is absent",
          Duration.ofSeconds(5),
          () -> heard.values().stream().allMatch(e -> e.equals(List.of(new LockRead.Absent()))));
      List<Thread> started = sharedWatchThreadsSince(namespace.name(), threadsBefore);
      assertEquals(1, started.size(), "one thread for " + count + " locks: " + started);

      for (int i = 0; i < count; i += 2) { // every other lock is written, twice
        KubeLock lock = locks.get(i);
        String v1 =
            ((LockWrite.Written) lock.create(record("a" + i, 1), CALL).toCompletableFuture().get())
                .version();
        lock.update(v1, record("b" + i, 2), CALL).toCompletableFuture().get();
      }
      Await.until(
          "the writes arrive",
          Duration.ofSeconds(5),
          () ->
              locks.stream()
                  .filter(l -> Integer.parseInt(l.name().substring(7)) % 2 == 0)
                  .allMatch(l -> heard.get(l.name()).size() >= 3));
      for (int i = 0; i < count; i++) {
        List<LockRead> events = heard.get("shared-" + i);
        if (i % 2 == 0) {
          assertEquals(
              List.of("a" + i, "b" + i),
              events.subList(1, events.size()).stream().map(WatchRecords::holderOf).toList(),
              "shared-" + i + " heard " + events);
        } else {
          assertEquals(
              List.of(new LockRead.Absent()), events, "shared-" + i + " heard about other objects");
        }
      }

      // A late joiner on a running watch gets the current state at once, without a list.
      KubeLock late = lock(cluster.admin(), namespace.name(), "shared-0");
      List<LockRead> lateEvents = new CopyOnWriteArrayList<>();
      subscriptions.add(late.watch(lateEvents::add).orElseThrow());
      assertEquals(1, lateEvents.size(), "delivered while joining: " + lateEvents);
      assertEquals("b0", holderOf(lateEvents.get(0)));

      new io.kubernetes.client.openapi.apis.CoordinationV1Api(cluster.admin())
          .deleteNamespacedLease("shared-0", namespace.name())
          .execute();
      Await.until(
          "both subscribers of shared-0 hear the delete",
          Duration.ofSeconds(5),
          () -> lateEvents.size() == 2 && heard.get("shared-0").size() == 4);
      assertEquals(new LockRead.Absent(), lateEvents.get(1));
      assertEquals(new LockRead.Absent(), heard.get("shared-0").get(3));
    } finally {
      for (Closeable watch : subscriptions) {
        watch.close();
      }
    }
    Await.until(
        "the shared thread ends with its last subscriber",
        Duration.ofSeconds(5),
        () -> sharedWatchThreadsSince(namespace.name(), threadsBefore).isEmpty());
  }

  @Test
  void withOnlyTheByNameRoleTheFailureNamesTheNamespaceWideRuleAndRecoversOnceGranted(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    KubeNamespace own = cluster.createNamespace("shared-rbac");
    KubeIdentity restricted = byNameIdentity(cluster, own);
    KubeLock lock = lock(restricted.client(), own.name(), "elector-leader");
    List<LockRead> events = new CopyOnWriteArrayList<>();

    Closeable watch = lock.watch(events::add).orElseThrow();
    try {
      Await.until(
          "the 403 is reported",
          Duration.ofSeconds(10),
          () -> events.stream().anyMatch(e -> e instanceof LockFailure));
      LockFailure failure = ((LockFailure) events.get(0));
      assertEquals(LockFailure.Kind.FORBIDDEN, failure.kind(), failure.toString());
      assertTrue(
          failure
              .message()
              .contains("verbs: [\"list\", \"watch\"]}, which" + " the shared watch needs"),
          failure.message());
      assertTrue(
          lock.read(CALL).toCompletableFuture().get() instanceof LockRead.Absent,
          "reading by name still works");

      // Add the namespace-wide rule of the sharing manifest next to the by-name Role.
      RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(cluster.admin());
      rbac.createNamespacedRole(
              own.name(),
              new V1Role()
                  .metadata(new V1ObjectMeta().name("shared-watch"))
                  .rules(
                      KubeCluster.roleRules(
                          Path.of("..", "deploy", "lease", "rbac-shared-watch.yaml"))))
          .execute();
      rbac.createNamespacedRoleBinding(
              own.name(),
              new V1RoleBinding()
                  .metadata(new V1ObjectMeta().name("shared-watch"))
                  .roleRef(
                      new V1RoleRef()
                          .apiGroup("rbac.authorization.k8s.io")
                          .kind("Role")
                          .name("shared-watch"))
                  .subjects(List.of(restricted.subject())))
          .execute();
      Await.until(
          "the watch recovers after the back-off",
          Duration.ofSeconds(30),
          () -> events.get(events.size() - 1) instanceof LockRead.Absent);
    } finally {
      watch.close();
    }
  }

  @Test
  void aLockJoiningDuringABreakHearsNothingStaleAndGetsTheStateAfterTheNextList(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    assumeTrue(cluster.isLocalControlPlane(), "needs the local control plane");
    KubeLock first = lock(cluster.admin(), namespace.name(), "break-a");
    first.create(record("before", 1), CALL).toCompletableFuture().get();
    List<LockRead> firstEvents = new CopyOnWriteArrayList<>();
    Closeable a = first.watch(firstEvents::add).orElseThrow();
    Closeable b = null;
    try {
      Await.until(
          "the first lock's state",
          Duration.ofSeconds(5),
          () -> "before".equals(firstEvents.isEmpty() ? null : holderOf(firstEvents.get(0))));
      cluster.stopApiServer();
      Await.until(
          "the break is reported",
          Duration.ofSeconds(10),
          () -> firstEvents.stream().anyMatch(e -> e instanceof LockFailure));

      KubeLock joiner = lock(cluster.admin(), namespace.name(), "break-a");
      List<LockRead> joinerEvents = new CopyOnWriteArrayList<>();
      b = joiner.watch(joinerEvents::add).orElseThrow();
      assertTrue(
          joinerEvents.stream().noneMatch(e -> e instanceof LockRead.Found),
          "a state held from before the break was handed to a joiner: " + joinerEvents);

      cluster.restartApiServer();
      Await.until(
          "the server answers",
          Duration.ofSeconds(20),
          () -> first.read(CALL).toCompletableFuture().get() instanceof LockRead.Found);
      Await.until(
          "the joiner gets the state after the relist",
          Duration.ofSeconds(40),
          () -> joinerEvents.stream().anyMatch(e -> "before".equals(holderOf(e))));
    } finally {
      a.close();
      if (b != null) {
        b.close();
      }
    }
  }

  @Test
  void electorsSharingAWatchTheyMayNotOpenStillElectByPollingAndTheFollowerSaysWhy(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    KubeNamespace own = cluster.createNamespace("shared-health");
    KubeIdentity restricted = byNameIdentity(cluster, own);
    List<LeaderElector> electors = new ArrayList<>();
    try {
      for (String id : List.of("a", "b")) {
        KubeLock lock =
            LeaseLock.newBuilder(restricted.client())
                .namespace(own.name())
                .name("elector-leader")
                .identity(id)
                .requestTimeout(Duration.ofSeconds(1))
                .sharedWatch(true)
                .build();
        electors.add(
            LeaderElector.start(
                ElectorConfig.newBuilder()
                    .lock(lock)
                    .callbacks(LeaderCallbacks.of(term -> {}, (term, why) -> {}))
                    .leaseDuration(Duration.ofSeconds(3))
                    .renewDeadline(Duration.ofSeconds(2))
                    .retryPeriod(Duration.ofMillis(500))
                    .build()));
      }
      Await.until(
          "one leader, by polling",
          Duration.ofSeconds(15),
          () -> electors.stream().filter(LeaderElector::isLeader).count() == 1);
      LeaderElector follower =
          electors.stream().filter(e -> !e.isLeader()).findFirst().orElseThrow();
      Await.until(
          "the follower's health names the refused watch",
          Duration.ofSeconds(10),
          () -> follower.stats().status().contains("polling while the watch is interrupted"));
      String detail = follower.stats().status();
      assertTrue(follower.stats().healthy(), detail);
      assertTrue(
          detail.contains("FORBIDDEN") && detail.contains("verbs: [\"list\", \"watch\"]"), detail);
    } finally {
      electors.forEach(LeaderElector::close);
    }
  }
}
