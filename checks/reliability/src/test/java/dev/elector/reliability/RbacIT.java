package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A candidate without the permissions it needs: none at all, or read-only. The error names the
 * verb, the resource, the namespace and every missing permission with the rules to add, in the log
 * (one ERROR a minute) and in the elector's health; the candidate never leads; its calls back off
 * well within the bound.
 */
@KubeTest
class RbacIT {
  private static final Duration WATCHED = Duration.ofSeconds(20);

  @Test
  void withoutAnyPermissionTheErrorNamesTheMissingRuleAndRetriesBackOff(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    KubeIdentity nobody = cluster.newIdentity(namespace, "no-permissions");

    Outcome outcome = run(cluster, namespace, nobody, "rbac-none");

    assertTrue(outcome.firstFailure().contains("is not allowed to get"), outcome.firstFailure());
    assertTrue(
        outcome
            .firstFailure()
            .contains(
                "lacks get, list, watch, patch, create (a SelfSubjectRulesReview says so): grant"
                    + " them all at once with a Role in namespace "
                    + namespace.name()),
        outcome.firstFailure());
    assertTrue(
        outcome
            .firstFailure()
            .contains(
                "with the rules {apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"],"
                    + " verbs: [\"get\", \"list\", \"watch\", \"patch\"], resourceNames:"
                    + " [\"rbac-none\"]} and {apiGroups: [\"coordination.k8s.io\"], resources:"
                    + " [\"leases\"], verbs: [\"create\"]}"),
        outcome.firstFailure());
    assertTrue(outcome.health().contains("FORBIDDEN"), outcome.health());
  }

  @Test
  void withReadOnlyPermissionsTheErrorNamesTheMissingWrite(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    KubeIdentity reader = cluster.newIdentity(namespace, "read-only");
    cluster.grant(
        reader,
        namespace,
        List.of(
            new V1PolicyRule()
                .apiGroups(List.of("coordination.k8s.io"))
                .resources(List.of("leases"))
                .verbs(List.of("get", "list", "watch"))));
    // A released lock: the candidate may take it at once, if it may write.
    new CoordinationV1Api(cluster.admin())
        .createNamespacedLease(
            namespace.name(),
            new V1Lease()
                .apiVersion("coordination.k8s.io/v1")
                .kind("Lease")
                .metadata(new V1ObjectMeta().name("rbac-read-only"))
                .spec(new V1LeaseSpec().holderIdentity("").leaseDurationSeconds(3)))
        .execute();

    Outcome outcome = run(cluster, namespace, reader, "rbac-read-only");

    assertTrue(outcome.health().contains("is not allowed to patch"), outcome.health());
    assertTrue(outcome.health().contains(" lacks patch, create ("), outcome.health());
    assertTrue(
        outcome.health().contains("verbs: [\"patch\"], resourceNames: [\"rbac-read-only\"]"),
        outcome.health());
  }

  private record Outcome(String firstFailure, String health) {}

  private Outcome run(
      KubeCluster cluster, KubeNamespace namespace, KubeIdentity identity, String lockName)
      throws Exception {
    KubeLock lock =
        LeaseLock.newBuilder(identity.client())
            .namespace(namespace.name())
            .name(lockName)
            .identity(identity.username())
            .requestTimeout(Duration.ofSeconds(1))
            .build();
    LockRead read = lock.read(Duration.ofSeconds(1)).toCompletableFuture().get();
    LogWindow log = LogWindow.open();
    LeaderElector elector =
        LeaderElector.start(
            ElectorConfig.newBuilder()
                .lock(lock)
                .leaseDuration(Cohort.LEASE)
                .renewDeadline(Cohort.RENEW_DEADLINE)
                .retryPeriod(Cohort.RETRY)
                .maxBackoff(Cohort.MAX_BACKOFF)
                .callbacks(LeaderCallbacks.of(t -> {}, (t, r) -> {}))
                .build());
    try {
      Waiting.throughout(
          WATCHED,
          Duration.ofMillis(50),
          () -> assertFalse(elector.isLeader(), "leading without permission"));
      long calls = elector.stats().totalCalls();
      List<String> lines = log.lines();
      String health = elector.stats().status();
      Figures.record(
          "rbac",
          lockName + "-calls",
          calls + " in " + Figures.millis(WATCHED) + " (bound " + Cohort.callBound(WATCHED) + ")");
      Figures.record("rbac", lockName + "-log-lines", lines.size());
      Figures.record("rbac", lockName + "-health", health);

      assertTrue(elector.stats().healthy(), "a missing permission is not a crash: " + health);
      assertTrue(calls <= Cohort.callBound(WATCHED) / 4, "the retries back off: " + calls);
      assertTrue(
          lines.stream().filter(l -> l.contains(" ERROR ")).count() == 1,
          "one ERROR for the streak:\n" + String.join("\n", lines));
      assertTrue(lines.size() <= 3, String.join("\n", lines));
      String first = read instanceof LockFailure failed ? failed.message() : "(the read succeeded)";
      if (read instanceof LockFailure failed) {
        assertEquals(LockFailure.Kind.FORBIDDEN, failed.kind());
      }
      return new Outcome(first, health);
    } finally {
      elector.close();
    }
  }
}
