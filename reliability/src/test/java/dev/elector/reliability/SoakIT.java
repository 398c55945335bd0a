package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.testkit.kube.LocalControlPlane;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Five candidates under randomized faults for {@code elector.soak.seconds} (90 in CI; run it for
 * ten minutes or more with {@code -Delector.soak.seconds=600}): leader or member partitions,
 * latency around the call timeout, 500s and 429s for everyone, random resets, refused connections,
 * lock deletions and foreign rewrites, and API server restarts. Reports leadership changes, total
 * leaderless time, calls per second, threads and heap; fails on any overlap, any breach of the call
 * bound, and growth of threads or heap. The seed is printed and can be set with
 * {@code -Delector.soak.seed}.
 */
@KubeTest
class SoakIT {
  private static final int CANDIDATES = 5;

  private interface Fault {
    String apply(Cohort cohort) throws Exception;
  }

  @Test
  void fiveCandidatesUnderRandomizedFaults(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    Duration length = Duration.ofSeconds(Long.getLong("elector.soak.seconds", 90));
    long seed = Long.getLong("elector.soak.seed", System.nanoTime());
    Random random = new Random(seed);
    System.out.println("soak seed " + seed + " (rerun with -Delector.soak.seed=" + seed + ")");
    CoordinationV1Api leases = new CoordinationV1Api(cluster.admin());
    LocalControlPlane plane = cluster.localControlPlane().orElse(null);
    Map<String, Integer> applied = new LinkedHashMap<>();

    try (Cohort cohort = new Cohort(cluster, namespace).start(CANDIDATES)) {
      cohort.awaitLeader(Duration.ofSeconds(30));
      Thread.sleep(3_000);
      long threadsBefore = settledThreads();
      long heapBefore = usedHeapAfterGc();
      LogWindow log = LogWindow.open();
      long callsBefore = cohort.totalCalls();
      Map<String, Long> memberCallsBefore = cohort.callsByMember();
      int termsBefore = cohort.timeline.terms().size();
      long start = System.nanoTime();
      long end = start + length.toNanos();
      long lastRestart = start;

      List<Fault> faults = new ArrayList<>(List.of(
          c -> partition(c.leaders().isEmpty() ? null : c.leaders().get(0), "leader"),
          c -> partition(c.members().get(random.nextInt(CANDIDATES)), "member"),
          c -> forAll(c, m -> m.proxy.latency(Duration.ofMillis(350), Duration.ofMillis(300)),
              "latency"),
          c -> forAll(c, m -> m.http.fail(0.5, 500), "http-500"),
          c -> forAll(c, m -> m.http.throttle(0.5, Duration.ofSeconds(1)), "http-429"),
          c -> forAll(c, m -> m.proxy.resetRandomly(0.2), "resets"),
          c -> {
            c.members().get(random.nextInt(CANDIDATES)).proxy.refuse().reset();
            return "refuse-one";
          },
          c -> {
            leases.deleteNamespacedLease(Cohort.LOCK, namespace.name()).execute();
            return "delete-lock";
          },
          c -> {
            V1Lease lease = leases.readNamespacedLease(Cohort.LOCK, namespace.name()).execute();
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            lease.getSpec().holderIdentity("intruder").leaseDurationSeconds(3).renewTime(now);
            leases.replaceNamespacedLease(Cohort.LOCK, namespace.name(), lease).execute();
            return "rewrite-lock";
          }));

      while (System.nanoTime() < end) {
        String name;
        boolean restartDue = plane != null && System.nanoTime() - lastRestart
            > Duration.ofSeconds(60).toNanos() && random.nextInt(4) == 0;
        if (restartDue) {
          plane.restart();
          lastRestart = System.nanoTime();
          name = "api-server-restart";
        } else {
          try {
            name = faults.get(random.nextInt(faults.size())).apply(cohort);
          } catch (Exception e) {
            name = "skipped (" + e.getClass().getSimpleName() + ")"; // e.g. the lock was absent
          }
        }
        applied.merge(name, 1, Integer::sum);
        watch(cohort, Duration.ofMillis(2_000 + random.nextInt(4_000)));
        cohort.healAll();
        watch(cohort, Duration.ofMillis(1_000 + random.nextInt(2_000)));
      }
      Duration window = Duration.ofNanos(System.nanoTime() - start);
      long calls = cohort.totalCalls() - callsBefore;
      Map<String, Long> byMember = cohort.callsByMember();
      Duration leaderless = cohort.timeline.leaderlessTime(start, System.nanoTime());
      int changes = cohort.timeline.terms().size() - termsBefore;
      int logLines = log.lines().size();
      cohort.healAll();
      cohort.awaitLeader(Duration.ofSeconds(30));
      Thread.sleep(8_000); // let connections and threads of the faulty period settle
      long threadsAfter = settledThreads();
      long heapAfter = usedHeapAfterGc();

      Figures.record("soak", "length", Figures.millis(window) + " (seed " + seed + ")");
      Figures.record("soak", "faults", applied);
      Figures.record("soak", "leadership-changes", changes);
      Figures.record("soak", "leaderless-time", Figures.millis(leaderless) + String.format(
          " (%.1f%%)", 100.0 * leaderless.toNanos() / window.toNanos()));
      Figures.record("soak", "longest-overlap", Figures.millis(cohort.timeline.maxOverlap()));
      Figures.record("soak", "lock-calls", calls + " (" + Figures.perSecond(calls, window)
          + " for " + CANDIDATES + " candidates)");
      Figures.record("soak", "log-lines", logLines);
      Figures.record("soak", "threads", threadsBefore + " -> " + threadsAfter);
      Figures.record("soak", "heap-used-after-gc", heapBefore / 1_048_576 + " MB -> "
          + heapAfter / 1_048_576 + " MB");

      cohort.timeline.assertNoOverlap();
      long perMemberBound = Cohort.callBound(window);
      byMember.forEach((member, total) -> {
        long made = total - memberCallsBefore.get(member);
        assertTrue(made <= perMemberBound, member + " made " + made + " calls in " + window
            + ", bound " + perMemberBound);
      });
      assertTrue(threadsAfter <= threadsBefore + 5, "threads grew: " + threadsBefore + " -> "
          + threadsAfter);
      assertTrue(heapAfter <= heapBefore + 32L * 1_048_576,
          "heap grew: " + heapBefore + " -> " + heapAfter);
    }
  }

  /** Samples leadership while a fault lasts: two leaders at once fail at once. */
  private static void watch(Cohort cohort, Duration period) throws InterruptedException {
    long until = System.nanoTime() + period.toNanos();
    while (System.nanoTime() < until) {
      assertTrue(cohort.leaders().size() <= 1, "two leaders at once: " + cohort.leaders());
      Thread.sleep(20);
    }
  }

  private static String partition(Cohort.Member member, String which) {
    if (member == null) {
      return "partition-" + which + " (no leader)";
    }
    member.proxy.blackhole();
    return "partition-" + which;
  }

  private static String forAll(Cohort cohort, java.util.function.Consumer<Cohort.Member> fault,
      String name) {
    cohort.members().forEach(fault);
    return name;
  }

  private static long settledThreads() throws InterruptedException {
    long low = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      low = Math.min(low, ManagementFactory.getThreadMXBean().getThreadCount());
      Thread.sleep(200);
    }
    return low;
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
