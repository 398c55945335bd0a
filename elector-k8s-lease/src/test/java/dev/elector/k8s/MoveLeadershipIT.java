package dev.elector.k8s;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.TermEnd;
import dev.elector.lock.LeaderRecord;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.time.MonotonicClock;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Moving leadership to a named replica on a real API server, the way an operator does it: {@code
 * kubectl annotate lease NAME elector.dev/preferred-holder=ID}. Three watching candidates at
 * default timings; the annotation names a follower that is not the first in line; the leader steps
 * down, the named one leads and the request is gone from the Lease, and nobody else led.
 */
@KubeTest
class MoveLeadershipIT {
  private static final String LEASE = "move-leadership";

  @Test
  void anAnnotationMovesLeadershipToTheNamedReplica(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    LeadershipTimeline timeline = new LeadershipTimeline(MonotonicClock.system());
    Map<String, Long> startedAt = new ConcurrentHashMap<>();
    List<LeaderElector> electors = new ArrayList<>();
    try {
      for (String id : List.of("a", "b", "c")) {
        electors.add(start(cluster, namespace, id, timeline, startedAt));
        if (id.equals("a")) {
          await("a leads").atMost(Duration.ofSeconds(30)).until(electors.get(0)::isLeader);
        }
      }
      LeaderElector a = electors.get(0);
      LeaderElector c = electors.get(2);
      await("b and c follow a")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  electors.stream()
                      .allMatch(e -> e.observedLeader().filter("a"::equals).isPresent()));

      CoordinationV1Api leases = new CoordinationV1Api(cluster.admin());
      V1Lease lease = leases.readNamespacedLease(LEASE, namespace.name()).execute();
      Map<String, String> annotations =
          new HashMap<>(
              lease.getMetadata().getAnnotations() == null
                  ? Map.of()
                  : lease.getMetadata().getAnnotations());
      annotations.put(LeaderRecord.PREFERRED_HOLDER, "c");
      lease.getMetadata().setAnnotations(annotations);
      long asked = System.nanoTime();
      leases.replaceNamespacedLease(LEASE, namespace.name(), lease).execute();

      await("c leads")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(1))
          .until(() -> startedAt.containsKey("c"));
      long moved = startedAt.get("c") - asked;

      assertEquals(1L, a.stats().termsEnded(TermEnd.STEPPED_DOWN));
      assertTrue(c.isLeader());
      assertTrue(!startedAt.containsKey("b"), "b held back");
      V1Lease after = leases.readNamespacedLease(LEASE, namespace.name()).execute();
      assertEquals("c", after.getSpec().getHolderIdentity());
      assertNull(
          after.getMetadata().getAnnotations() == null
              ? null
              : after.getMetadata().getAnnotations().get(LeaderRecord.PREFERRED_HOLDER),
          "the request is gone once c leads");
      timeline.assertNoOverlap();
      System.out.printf(
          Locale.ROOT,
          "FIGURE move-leadership annotation-to-named-leader %.1f ms (3 watching candidates,"
              + " lease 15 s)%n",
          moved / 1e6);
    } finally {
      CompletableFuture.allOf(
              electors.stream().map(LeaderElector::closeAsync).toArray(CompletableFuture[]::new))
          .join();
    }
  }

  private static LeaderElector start(
      KubeCluster cluster,
      KubeNamespace namespace,
      String id,
      LeadershipTimeline timeline,
      Map<String, Long> startedAt) {
    return LeaderElector.start(
        ElectorConfig.newBuilder()
            .lock(
                LeaseLock.newBuilder(cluster.admin())
                    .namespace(namespace.name())
                    .name(LEASE)
                    .identity(id)
                    .build())
            .listener(timeline.listenerFor(id))
            .callbacks(
                LeaderCallbacks.of(
                    term -> startedAt.putIfAbsent(id, System.nanoTime()), (term, reason) -> {}))
            .build());
  }
}
