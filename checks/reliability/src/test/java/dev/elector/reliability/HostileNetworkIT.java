package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every candidate's connection is degraded at once, for {@link #LENGTH}: latency around the call
 * timeout, half the requests failing with 500 or with 429, connections reset at random. Whatever
 * happens to leadership, no two candidates lead at once, fencing tokens only increase, calls stay
 * within the documented bound and the log does not flood. Afterwards a leader emerges.
 */
@KubeTest
class HostileNetworkIT {
  private static final Duration LENGTH = Duration.ofSeconds(20);

  @Test
  void latencyAroundTheCallTimeout(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    // 350-650 ms each way: round trips of 0.7-1.3 s against a call timeout of 1 s.
    endure(
        "latency",
        cluster,
        namespace,
        m -> m.proxy.latency(Duration.ofMillis(350), Duration.ofMillis(300)));
  }

  @Test
  void halfTheRequestsFailWith500(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    endure("http-500", cluster, namespace, m -> m.http.fail(0.5, 500));
  }

  @Test
  void halfTheRequestsAreThrottledWith429(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    endure("http-429", cluster, namespace, m -> m.http.throttle(0.5, Duration.ofSeconds(1)));
  }

  @Test
  void connectionsAreResetAtRandom(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    endure("resets", cluster, namespace, m -> m.proxy.resetRandomly(0.2));
  }

  private void endure(
      String scenario, KubeCluster cluster, KubeNamespace namespace, Consumer<Cohort.Member> fault)
      throws Exception {
    try (Cohort cohort = new Cohort(cluster, namespace).start(3)) {
      cohort.awaitRenewals(cohort.awaitLeader(Duration.ofSeconds(20)), 2, Duration.ofSeconds(10));
      LogWindow log = LogWindow.open();
      Map<String, Long> before = cohort.callsByMember();
      int termsBefore = cohort.timeline.terms().size();
      long start = System.nanoTime();

      cohort.members().forEach(fault);
      Waiting.throughout(
          LENGTH,
          Duration.ofMillis(20),
          () ->
              assertTrue(cohort.leaders().size() <= 1, "two leaders at once: " + cohort.leaders()));
      Duration window = Duration.ofNanos(System.nanoTime() - start);
      Map<String, Long> after = cohort.callsByMember();
      List<String> warnings = log.warnings();
      int lines = log.lines().size();
      Duration leaderless = cohort.timeline.leaderlessTime(start, System.nanoTime());
      cohort.healAll();
      Cohort.Member recovered = cohort.awaitLeader(Duration.ofSeconds(20));

      int changes = cohort.timeline.terms().size() - termsBefore;
      Figures.record(scenario, "new-terms", changes);
      Figures.record(
          scenario, "leaderless", Figures.millis(leaderless) + " of " + Figures.millis(window));
      Figures.record(scenario, "log-lines", lines + " (warn/error " + warnings.size() + ")");
      for (String name : after.keySet()) {
        long calls = after.get(name) - before.get(name);
        Figures.record(
            scenario,
            name + "-lock-calls",
            calls
                + " ("
                + Figures.perSecond(calls, window)
                + ", bound "
                + Cohort.callBound(window)
                + ")");
        assertTrue(
            calls <= Cohort.callBound(window), name + " made " + calls + " calls in " + window);
      }
      // Per candidate the failure log reports at most one failure a minute, plus one recovery
      // line for a reported streak; each leadership change adds at most three lines (started,
      // lost or stopped, and a reported acquire recovery). Anything near a line per call floods.
      long minutes = 1 + window.toSeconds() / 60;
      long allowed = 2L * minutes * cohort.members().size() + 3L * changes;
      assertTrue(
          lines <= allowed,
          "log flood: "
              + lines
              + " lines, allowed "
              + allowed
              + "\n"
              + String.join("\n", log.lines()));
      cohort.timeline.assertNoOverlap();
      assertTrue(recovered.leading());
      for (LeadershipTimeline.Interval term : cohort.timeline.terms()) {
        assertTrue(term.endNanos() - term.startNanos() >= 0);
      }
    }
  }
}
