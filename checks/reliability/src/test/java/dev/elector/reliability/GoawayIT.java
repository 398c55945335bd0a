package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.reliability.HaPlane.Kind;
import dev.elector.testenv.HaControlPlane;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three API servers behind the balancer, each sending HTTP/2 GOAWAY on a share of requests at the
 * highest chance kube-apiserver accepts ({@code --goaway-chance=0.02}), so clients keep
 * reconnecting. Elector (both backends) and client-go candidates on one Lease, once per kind of
 * leader: no term is lost, no overlap, and Elector stays within its call bound. {@link #WINDOW}
 * long; three minutes with {@code -Delector.ha.long=true}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GoawayIT {
  static final String CHANCE = "0.02"; // kube-apiserver refuses more than 0.02
  static final Duration WINDOW = HaPlane.LONG ? Duration.ofMinutes(3) : Duration.ofSeconds(12);

  private HaControlPlane plane;
  private KubeCluster cluster;

  @BeforeAll
  void start() throws Exception {
    plane = HaPlane.start(3, i -> List.of("--goaway-chance=" + CHANCE));
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
  void goawayOnEveryServerCostsNoTerm(Kind leaderKind) throws Exception {
    String scenario = "ha-goaway-" + leaderKind.name().toLowerCase(Locale.ROOT);
    KubeNamespace namespace = HaPlane.namespace(cluster, scenario);
    Path work = HaPlane.work(scenario);
    try (Cohort cohort = new Cohort(cluster, namespace)) {
      Cohort.Candidate leader = HaPlane.leaderThenFollowers(cohort, leaderKind, work);
      int termsBefore = cohort.timeline.terms().size();
      Map<String, Long> requestsBefore = HaPlane.requests(cohort);
      Map<String, Long> callsBefore = cohort.callsByMember();
      long connectionsBefore = connections();
      cohort.members().forEach(m -> m.renewals.reset());
      long start = System.nanoTime();
      Waiting.throughout(
          WINDOW,
          Duration.ofMillis(20),
          () -> assertTrue(cohort.allLeading().size() <= 1, "two leaders: " + cohort.allLeading()));
      Duration window = Duration.ofNanos(System.nanoTime() - start);
      Figures.record(scenario, "leader", leaderKind.label);
      Figures.record(scenario, "new-connections", connections() - connectionsBefore);
      HaPlane.figures(scenario, cohort, termsBefore, requestsBefore, start);
      Map<String, Long> callsAfter = cohort.callsByMember();
      for (String name : callsAfter.keySet()) {
        long calls = callsAfter.get(name) - callsBefore.get(name);
        assertTrue(
            calls <= Cohort.callBound(window),
            name
                + " made "
                + calls
                + " calls in "
                + window
                + ", bound "
                + Cohort.callBound(window));
      }
      cohort.timeline.assertNoOverlap();
      assertEquals(
          termsBefore,
          cohort.timeline.terms().size(),
          "a term was lost to GOAWAY: " + cohort.timeline.terms());
      assertTrue(leader.leading(), leader + " no longer leads");
    }
  }

  private long connections() {
    long sum = 0;
    for (int i = 0; i < plane.size(); i++) {
      sum += plane.balancer().connections(i);
    }
    return sum;
  }
}
