package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An outside writer deletes the Lease, or rewrites it with a holder of its own, again and again.
 * The same electors, never restarted, recover every time: a member of the cohort leads again, no
 * two lead at once, and fencing tokens keep increasing because the running candidates remember the
 * highest they saw.
 */
@KubeTest
class LockTamperingIT {
  private static final int ROUNDS = 6;

  @Test
  void electorsRecoverFromRepeatedDeletionsAndForeignRewritesWithoutRestarts(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    CoordinationV1Api leases = new CoordinationV1Api(cluster.admin());
    try (Cohort cohort = new Cohort(cluster, namespace).start(3)) {
      cohort.awaitLeader(Duration.ofSeconds(20));
      for (int round = 1; round <= ROUNDS; round++) {
        Thread.sleep(1_000); // the scenario's pace: one tampering a second
        boolean delete = round % 2 == 1;
        int termsBefore = cohort.timeline.terms().size();
        long tampered = System.nanoTime();
        if (delete) {
          leases.deleteNamespacedLease(Cohort.LOCK, namespace.name()).execute();
        } else {
          overwriteHolder(leases, namespace, "intruder-" + round);
        }
        waitForNewTerm(cohort, termsBefore, Duration.ofSeconds(20));
        Duration recovery = Duration.ofNanos(System.nanoTime() - tampered);
        Figures.record(
            "tampering",
            "round-" + round + (delete ? "-delete" : "-rewrite") + "-recovered-in",
            Figures.millis(recovery));
        assertTrue(
            recovery.compareTo(
                    Cohort.LEASE.plus(Cohort.RETRY.multipliedBy(4)).plus(Cohort.MAX_BACKOFF))
                <= 0,
            "round " + round + " took " + recovery);
      }
      cohort.timeline.assertNoOverlap();
      long terms = cohort.members().stream().mapToLong(m -> m.stats().termsStarted()).sum();
      assertTrue(terms >= ROUNDS + 1, "a new term after every round: " + terms);
      assertEquals(1, cohort.leaders().size());
      List<Long> tokens = cohort.timeline.terms().stream().map(t -> t.token()).toList();
      Figures.record("tampering", "tokens", tokens);
    }
  }

  /**
   * Rewrites the lock with a holder of the intruder's own, as a real outside writer does: read,
   * change, replace, and read again when a renewal got in between (a 409 is the electors still
   * renewing, not a failure of the scenario).
   */
  private static void overwriteHolder(
      CoordinationV1Api leases, KubeNamespace namespace, String intruder) throws ApiException {
    for (int attempt = 1; ; attempt++) {
      V1Lease lease = leases.readNamespacedLease(Cohort.LOCK, namespace.name()).execute();
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      lease
          .getSpec()
          .holderIdentity(intruder)
          .leaseDurationSeconds(3)
          .acquireTime(now)
          .renewTime(now);
      try {
        leases.replaceNamespacedLease(Cohort.LOCK, namespace.name(), lease).execute();
        return;
      } catch (ApiException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  private static void waitForNewTerm(Cohort cohort, int termsBefore, Duration limit)
      throws InterruptedException {
    Waiting.until(
        limit,
        Duration.ofMillis(10),
        () ->
            cohort.timeline.terms().size() > termsBefore && !cohort.leaders().isEmpty()
                ? Optional.of(true)
                : Optional.empty(),
        () -> "no new leader within " + limit + ": " + cohort.timeline.terms());
  }
}
