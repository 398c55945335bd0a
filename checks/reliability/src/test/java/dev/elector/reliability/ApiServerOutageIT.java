package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The API server goes down for longer than leaseDuration and comes back with its data: the leader
 * steps down in time, nobody leads while it is down, one leader emerges within a bounded time after
 * it returns, and every candidate's calls stay within the documented bound meanwhile.
 */
@KubeTest
class ApiServerOutageIT {
  private static final Duration DOWN = Duration.ofSeconds(8);

  @Test
  void nobodyLeadsWhileTheApiServerIsDownAndOneLeaderEmergesAfter(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    Assumptions.assumeTrue(
        cluster.isLocalControlPlane(),
        "this scenario stops and restarts the local control"
            + " plane; "
            + cluster.description()
            + " cannot be stopped from here");
    try (Cohort cohort = new Cohort(cluster, namespace).start(3)) {
      Cohort.Member leader = cohort.awaitLeader(Duration.ofSeconds(20));
      cohort.awaitRenewals(leader, 3, Duration.ofSeconds(10));
      LogWindow log = LogWindow.open();
      Map<String, Long> callsBefore = cohort.callsByMember();
      long stopping = System.nanoTime();

      cluster.stopApiServer();
      long down = System.nanoTime();
      Duration stepDown =
          cohort.awaitStepDown(leader, Cohort.RENEW_DEADLINE.plus(Duration.ofSeconds(2)));
      // The scenario itself: the server stays down for DOWN.
      Thread.sleep(Math.max(0, DOWN.toMillis() - (System.nanoTime() - down) / 1_000_000));
      // The restarted server answers requests before restart() returns (it waits for readiness),
      // so the window in which nobody may start a term ends where the restart begins.
      long restarting = System.nanoTime();
      cluster.restartApiServer();
      long ready = System.nanoTime();
      Cohort.Member next = cohort.awaitLeader(Duration.ofSeconds(30));
      long recovered = System.nanoTime();
      Duration window = Duration.ofNanos(recovered - stopping);
      Map<String, Long> callsAfter = cohort.callsByMember();

      Duration stopToStepDown = Duration.ofNanos(stepDown.toNanos() + (down - stopping));
      Figures.record(
          "outage", "api-server-down-for", Figures.millis(Duration.ofNanos(ready - down)));
      Figures.record("outage", "stop-to-leader-step-down", Figures.millis(stopToStepDown));
      Figures.record(
          "outage", "ready-to-new-leader", Figures.millis(Duration.ofNanos(recovered - ready)));
      Figures.record(
          "outage",
          "leaderless-time",
          Figures.millis(cohort.timeline.leaderlessTime(stopping, recovered)));
      for (String name : callsAfter.keySet()) {
        long calls = callsAfter.get(name) - callsBefore.get(name);
        Figures.record(
            "outage",
            name + "-lock-calls",
            calls
                + " in "
                + Figures.millis(window)
                + " ("
                + Figures.perSecond(calls, window)
                + ", bound "
                + Cohort.callBound(window)
                + ")");
        assertTrue(calls <= Cohort.callBound(window), name + " made " + calls + " calls");
      }
      List<String> warnings = log.warnings();
      Figures.record("outage", "warn-and-error-lines", warnings.size());

      assertTrue(
          stepDown.compareTo(Cohort.RENEW_DEADLINE.plus(Duration.ofMillis(200))) <= 0,
          "the leader stepped down within renewDeadline of losing the server: " + stepDown);
      for (LeadershipTimeline.Interval term : cohort.timeline.terms()) {
        assertTrue(
            term.startNanos() < down || term.startNanos() > restarting,
            "a term started while the API server was down: " + term);
      }
      assertTrue(
          warnings.size() <= 4 * cohort.members().size(),
          "log flood: " + warnings.size() + " warnings\n" + String.join("\n", warnings));
      assertTrue(next.elector.isLeader());
      cohort.timeline.assertNoOverlap();
    }
  }
}
