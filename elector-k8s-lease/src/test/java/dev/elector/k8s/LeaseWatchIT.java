package dev.elector.k8s;

import static dev.elector.k8s.WatchRecords.holderOf;
import static dev.elector.k8s.WatchRecords.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.elector.kube.KubeLock;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The watch on a real server: current state first, each change, breaks and reconnection. */
@KubeTest
class LeaseWatchIT {
  /** The timeout of a lock call made by the test itself: long, the test is not about time. */
  private static final Duration CALL = Duration.ofSeconds(30);

  @Test
  void deliversTheCurrentStateThenEveryChangeOfThisObjectOnly(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    KubeLock lock =
        LeaseLock.newBuilder(cluster.admin())
            .namespace(namespace.name())
            .name("watched")
            .identity("me")
            .build();
    KubeLock neighbour =
        LeaseLock.newBuilder(cluster.admin())
            .namespace(namespace.name())
            .name("neighbour")
            .identity("me")
            .build();
    List<LockRead> events = new CopyOnWriteArrayList<>();

    Closeable watch = lock.watch(events::add).orElseThrow();
    try {
      Await.until("the initial state", Duration.ofSeconds(5), () -> events.size() == 1);
      assertEquals(new LockRead.Absent(), events.get(0));
      String v1 =
          ((LockWrite.Written) lock.create(record("a", 1), CALL).toCompletableFuture().get())
              .version();
      neighbour.create(record("n", 1), CALL).toCompletableFuture().get();
      lock.update(v1, record("b", 2), CALL).toCompletableFuture().get();

      Await.until("create and update arrive", Duration.ofSeconds(5), () -> events.size() >= 3);
      assertEquals("a", holderOf(events.get(1)));
      assertEquals("b", holderOf(events.get(2)));
    } finally {
      watch.close();
    }
    int seen = events.size();
    lock.read(CALL).toCompletableFuture().get();
    assertEquals(3, seen, "only this object's events: " + events);
  }

  @Test
  void aBrokenWatchReportsFailureAndResumesAfterTheServerReturns(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    assumeTrue(cluster.isLocalControlPlane(), "needs the local control plane");
    KubeLock lock =
        LeaseLock.newBuilder(cluster.admin())
            .namespace(namespace.name())
            .name("outage")
            .identity("me")
            .requestTimeout(Duration.ofSeconds(1))
            .build();
    lock.create(record("before", 1), CALL).toCompletableFuture().get();
    List<LockRead> events = new CopyOnWriteArrayList<>();

    Closeable watch = lock.watch(events::add).orElseThrow();
    try {
      Await.until(
          "the initial state",
          Duration.ofSeconds(5),
          () -> events.stream().anyMatch(e -> "before".equals(holderOf(e))));
      cluster.stopApiServer();
      Await.until(
          "the break is reported",
          Duration.ofSeconds(10),
          () -> events.stream().anyMatch(e -> e instanceof LockFailure));
      LockFailure failure =
          events.stream()
              .filter(e -> e instanceof LockFailure)
              .map(e -> ((LockFailure) e))
              .findFirst()
              .orElseThrow();
      assertEquals(false, failure.kind().isConfigurationProblem(), failure.toString());
      cluster.restartApiServer();
      Await.until(
          "the server answers again",
          Duration.ofSeconds(20),
          () -> lock.read(CALL).toCompletableFuture().get() instanceof LockRead.Found);
      String version = ((LockRead.Found) lock.read(CALL).toCompletableFuture().get()).version();
      lock.update(version, record("after", 2), CALL).toCompletableFuture().get();

      Await.until(
          "the watch resumed and saw the change",
          Duration.ofSeconds(40),
          () -> events.stream().anyMatch(e -> "after".equals(holderOf(e))));
    } finally {
      watch.close();
    }
  }
}
