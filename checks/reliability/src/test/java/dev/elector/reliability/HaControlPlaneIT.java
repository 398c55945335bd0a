package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.reliability.HaPlane.Kind;
import dev.elector.testenv.HaControlPlane;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Elector (client-java and fabric8 backends) and client-go candidates on one Lease of a control
 * plane of three API servers sharing one etcd ({@link HaControlPlane}), with the overlap detector
 * on: a rolling restart of the servers, one server whose view of etcd lags, and one server cut off
 * from etcd while it still answers clients. Each scenario runs once per kind of leader; the others
 * follow. {@code -Delector.ha.long=true} repeats the rolling restart five times, at the default
 * timings (15 s / 10 s / 2 s) for every kind of candidate ({@code -Delector.ha.short-timings=true}:
 * at the cohort's shortened timings, as the short version runs).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HaControlPlaneIT {
  /** Latency each way on the lagging server's etcd link: its watch cache, reads and writes lag. */
  static final Duration ETCD_LAG = Duration.ofMillis(150);

  private HaControlPlane plane;
  private KubeCluster cluster;

  @BeforeAll
  void start() throws Exception {
    plane = HaPlane.start(3, i -> List.of());
    cluster = plane.cluster();
  }

  @AfterAll
  void stop() {
    if (plane != null) {
      plane.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRollingRestartOfEveryServerKeepsTheLeader(Kind leaderKind) throws Exception {
    String scenario = "ha-rolling-restart-" + leaderKind.name().toLowerCase(Locale.ROOT);
    KubeNamespace namespace = HaPlane.namespace(cluster, scenario);
    Path work = HaPlane.work(scenario);
    try (Cohort cohort = new Cohort(cluster, namespace)) { // every candidate through the balancer
      cohort.timings(HaPlane.rollingRestartTimings());
      Cohort.Candidate leader = HaPlane.leaderThenFollowers(cohort, leaderKind, work);
      int termsBefore = cohort.timeline.terms().size();
      Map<String, Long> requestsBefore = HaPlane.requests(cohort);
      cohort.members().forEach(m -> m.renewals.reset());
      long start = System.nanoTime();

      int passes = HaPlane.LONG ? 5 : 1;
      for (int pass = 0; pass < passes; pass++) {
        for (int i = 0; i < plane.size(); i++) {
          plane.restart(i); // SIGTERM, graceful shutdown, start on the same port: about 5 s
        }
      }
      Figures.record(scenario, "leader", leaderKind.label);
      Figures.record(scenario, "timings", cohort.timings());
      HaPlane.figures(scenario, cohort, termsBefore, requestsBefore, start);

      // Safety always; the number of changes is a figure (at these timings a backend can lose a
      // term to a restart, see RELIABILITY.md), bounded by one per restart.
      List<LeadershipTimeline.Interval> terms = cohort.timeline.terms();
      Duration settle = cohort.timings().lease().multipliedBy(2).plusSeconds(10);
      for (int i = 0; i < terms.size() - 1; i++) {
        awaitEnded(cohort, i, settle);
      }
      cohort.timeline.assertNoOverlap();
      assertTrue(
          terms.size() - termsBefore <= passes * plane.size(),
          "more leadership changes than restarts: " + terms);
      HaPlane.awaitOneLeader(cohort, settle);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void followersOnALaggingServerTakeOverWithoutOverlap(Kind leaderKind) throws Exception {
    String scenario = "ha-watch-lag-" + leaderKind.name().toLowerCase(Locale.ROOT);
    Duration lagged = takeover(scenario + "-lagging", leaderKind, true);
    Duration control = takeover(scenario + "-control", leaderKind, false);
    Figures.record(
        scenario,
        "takeover-after-leader-cut",
        "lagging " + Figures.millis(lagged) + ", without lag " + Figures.millis(control));
  }

  /**
   * The leader on server 0, followers of the other two kinds on server 2; server 2's etcd link
   * delayed when {@code lag}. The leader's network is cut; returns the time from the cut to a
   * follower's term.
   */
  private Duration takeover(String scenario, Kind leaderKind, boolean lag) throws Exception {
    KubeNamespace namespace = HaPlane.namespace(cluster, scenario);
    Path work = HaPlane.work(scenario);
    try (Cohort cohort = new Cohort(cluster, namespace)) {
      Cohort.Candidate leader =
          HaPlane.add(cohort.via(plane.server(0)), leaderKind, "leader", work);
      assertEquals(leader, HaPlane.awaitOneLeader(cohort, Duration.ofSeconds(20)));
      if (lag) {
        plane.etcdLink(2).latency(ETCD_LAG, Duration.ZERO);
      }
      try {
        cohort.via(plane.server(2));
        for (Kind kind : Kind.values()) {
          if (kind != leaderKind) {
            HaPlane.add(cohort, kind, "follower-" + kind.name().toLowerCase(Locale.ROOT), work);
          }
        }
        int termsBefore = cohort.timeline.terms().size();
        Map<String, Long> requestsBefore = HaPlane.requests(cohort);
        long start = System.nanoTime();
        leader.proxy().blackhole();
        long cut = System.nanoTime();
        LeadershipTimeline.Interval next =
            awaitTermAfter(cohort, termsBefore, Duration.ofSeconds(30));
        awaitEnded(cohort, termsBefore - 1, Duration.ofSeconds(30));
        Duration takeover = Duration.ofNanos(next.startNanos() - cut);
        Figures.record(scenario, "leader", leaderKind.label);
        Figures.record(scenario, "new-leader", next.candidate());
        Figures.record(scenario, "takeover", Figures.millis(takeover));
        HaPlane.figures(scenario, cohort, termsBefore, requestsBefore, start);
        cohort.timeline.assertNoOverlap();
        return takeover;
      } finally {
        plane.etcdLink(2).heal();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aLeaderWhoseServerLosesEtcdStepsDownAndAnotherLeads(Kind leaderKind) throws Exception {
    String scenario = "ha-etcd-partition-" + leaderKind.name().toLowerCase(Locale.ROOT);
    KubeNamespace namespace = HaPlane.namespace(cluster, scenario);
    Path work = HaPlane.work(scenario);
    try (Cohort cohort = new Cohort(cluster, namespace)) {
      Cohort.Candidate leader =
          HaPlane.add(cohort.via(plane.server(1)), leaderKind, "leader", work);
      assertEquals(leader, HaPlane.awaitOneLeader(cohort, Duration.ofSeconds(20)));
      List<Kind> others = new ArrayList<>();
      for (Kind kind : Kind.values()) {
        if (kind != leaderKind) {
          others.add(kind);
        }
      }
      HaPlane.add(cohort.via(plane.server(0)), others.get(0), "follower-a", work);
      HaPlane.add(cohort.via(plane.server(2)), others.get(1), "follower-b", work);
      int termsBefore = cohort.timeline.terms().size();
      Map<String, Long> requestsBefore = HaPlane.requests(cohort);
      long start = System.nanoTime();
      try {
        plane.etcdLink(1).blackhole(); // server 1 still accepts and answers, without etcd
        long cut = System.nanoTime();
        LeadershipTimeline.Interval next =
            awaitTermAfter(cohort, termsBefore, Duration.ofSeconds(30));
        LeadershipTimeline.Interval old =
            awaitEnded(cohort, termsBefore - 1, Duration.ofSeconds(30));
        Figures.record(scenario, "leader", leaderKind.label);
        Figures.record(
            scenario,
            "step-down-after-cut",
            Figures.millis(Duration.ofNanos(old.endNanos() - cut)));
        Figures.record(scenario, "new-leader", next.candidate());
        Figures.record(
            scenario,
            "new-term-after-cut",
            Figures.millis(Duration.ofNanos(next.startNanos() - cut)));
        HaPlane.figures(scenario, cohort, termsBefore, requestsBefore, start);
        cohort.timeline.assertNoOverlap();
        assertEquals(leader.name(), old.candidate());
        assertTrue(old.endNanos() <= next.startNanos(), old + " ends after " + next + " starts");
      } finally {
        plane.etcdLink(1).heal();
      }
    }
  }

  /**
   * Waits until term {@code index} has ended and returns it. A client-go term is put on the
   * timeline when client-go reports it stopped (its release can take a while after its renew
   * deadline passed), with the end at that deadline; the overlap check needs that end.
   */
  static LeadershipTimeline.Interval awaitEnded(Cohort cohort, int index, Duration limit) {
    return Waiting.until(
        limit,
        Duration.ofMillis(10),
        () -> Optional.of(cohort.timeline.terms().get(index)).filter(term -> !term.open()),
        () -> cohort.timeline.terms().get(index) + " has not ended within " + limit);
  }

  /** Waits for the first term after the first {@code before} terms and returns it. */
  static LeadershipTimeline.Interval awaitTermAfter(Cohort cohort, int before, Duration limit) {
    return Waiting.until(
        limit,
        Duration.ofMillis(10),
        () -> cohort.timeline.terms().stream().skip(before).findFirst(),
        () -> "no new term within " + limit + ": " + cohort.timeline.terms());
  }
}
