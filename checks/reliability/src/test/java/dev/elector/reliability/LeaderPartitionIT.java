package dev.elector.reliability;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.TermEnd;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Only the leader is partitioned from the API server (its proxy blackholes): it steps down before
 * its lease can expire for the others, and a follower takes over after expiry. Then the partition
 * heals and the old leader follows.
 */
@KubeTest
class LeaderPartitionIT {

  @Test
  void aPartitionedLeaderStepsDownBeforeAFollowerTakesOverAfterExpiry(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    try (Cohort cohort = new Cohort(cluster, namespace).start(3)) {
      Cohort.Member leader = cohort.awaitLeader(Duration.ofSeconds(20));
      cohort.awaitRenewals(leader, 3, Duration.ofSeconds(10)); // a few quiet renewals

      leader.proxy.blackhole();
      long partitioned = System.nanoTime();
      Duration stepDown =
          cohort.awaitStepDown(leader, Cohort.RENEW_DEADLINE.plus(Duration.ofSeconds(1)));
      Cohort.Member next = cohort.awaitLeaderOtherThan(leader, Duration.ofSeconds(15));
      Duration takeover = Duration.ofNanos(System.nanoTime() - partitioned);

      List<LeadershipTimeline.Interval> terms = cohort.timeline.terms();
      LeadershipTimeline.Interval old = terms.get(terms.size() - 2);
      LeadershipTimeline.Interval fresh = terms.get(terms.size() - 1);
      Duration gap = Duration.ofNanos(fresh.startNanos() - old.endNanos());
      Figures.record("partition", "partition-to-step-down", Figures.millis(stepDown));
      Figures.record("partition", "partition-to-new-leader", Figures.millis(takeover));
      Figures.record("partition", "old-term-end-to-new-term-start", Figures.millis(gap));

      assertEquals(TermEnd.RENEW_DEADLINE_EXCEEDED, old.reason());
      assertEquals(leader.name, old.candidate());
      assertEquals(next.name, fresh.candidate());
      assertTrue(old.endNanos() <= fresh.startNanos(), "the old leader stepped down first");
      // The old term's deadline is renewDeadline after the start of its last successful renewal.
      long lastRenewal =
          leader.terms().get(leader.terms().size() - 1).activeUntilNanos()
              - Cohort.RENEW_DEADLINE.toNanos();
      Figures.record(
          "partition",
          "last-renewal-to-new-term",
          Figures.millis(Duration.ofNanos(fresh.startNanos() - lastRenewal)));
      assertTrue(
          fresh.startNanos() - lastRenewal >= Cohort.LEASE.toNanos(),
          "nobody took over before the lease expired");
      assertTrue(fresh.token() > old.token(), "the new term's fencing token is newer");

      leader.proxy.heal();
      // The scenario's window: two leases in which the healed old leader could wrongly lead
      // again; the new leader must be the only one throughout, not only at the end.
      Duration window = Cohort.LEASE.multipliedBy(2);
      await("the healed old leader follows, for two leases")
          .during(window)
          .atMost(window.plusSeconds(5))
          .until(() -> cohort.leaders().equals(List.of(next)));
      cohort.timeline.assertNoOverlap();
    }
  }
}
