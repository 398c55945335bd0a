package dev.elector.fabric8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.testenv.Await;
import dev.elector.testkit.internal.LocalControlPlane;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fabric8 Lease lock on a control plane of its own with the feature gate {@code
 * CoordinatedLeaderElection} and the API {@code coordination.k8s.io/v1beta1} on: a Lease naming
 * {@code spec.strategy} that looks long expired is followed and never written. Timings: lease 2 s,
 * renew deadline 1 s, retry 0.25 s; the candidates poll, and look at the Lease until it has looked
 * expired for two of their leases.
 */
class Fabric8CoordinatedLeaseIT {
  private static final String STRATEGY = "OldestEmulationVersion";
  private static final Duration RETRY = Duration.ofMillis(250);

  private static KubeCluster cluster;
  private static final Fabric8Clients clients = new Fabric8Clients();

  @BeforeAll
  static void startAControlPlaneWithTheGateOn() throws Exception {
    String given = System.getenv("ELECTOR_APISERVER_BIN");
    Path binary =
        Path.of(
            given != null && !given.isBlank()
                ? given
                : System.getProperty("user.home") + "/.cache/elector/bin/elector-apiserver");
    assumeTrue(
        Files.isExecutable(binary),
        "needs the local control plane (bash testenv/build.sh) to start one with the gate on");
    LocalControlPlane plane =
        LocalControlPlane.start(
            binary,
            Files.createTempDirectory("elector-coordinated-"),
            Duration.ofMinutes(3),
            // the gate without the LeaseCandidate API leaves the server never ready
            List.of(
                "--apiserver-arg=--feature-gates=CoordinatedLeaderElection=true",
                "--apiserver-arg=--runtime-config=coordination.k8s.io/v1beta1=true"));
    cluster =
        KubeCluster.fromKubeconfig(
            "local control plane " + plane.version() + " with CoordinatedLeaderElection",
            plane.kubeconfig(),
            plane);
  }

  @AfterAll
  static void stop() {
    clients.close();
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aLeaseNamingAStrategyIsFollowedAndNeverWrittenThoughItLooksLongExpired() throws Exception {
    KubeNamespace namespace = cluster.createNamespace("coordinated");
    CoordinationV1Api leases = new CoordinationV1Api(cluster.admin());
    OffsetDateTime anHourAgo = OffsetDateTime.now(ZoneOffset.UTC).minusHours(1);
    leases
        .createNamespacedLease(
            namespace.name(),
            new V1Lease()
                .metadata(new V1ObjectMeta().name("coordinated"))
                .spec(
                    new V1LeaseSpec()
                        .holderIdentity("kube-scheduler-a")
                        .leaseDurationSeconds(1)
                        .acquireTime(anHourAgo)
                        .renewTime(anHourAgo)
                        .leaseTransitions(3)
                        .strategy(STRATEGY)))
        .execute();
    V1Lease before = leases.readNamespacedLease("coordinated", namespace.name()).execute();
    assertEquals(
        STRATEGY,
        Objects.requireNonNull(before.getSpec()).getStrategy(),
        "the server keeps spec.strategy only with the feature gate on");

    List<LeaderElector> electors = new ArrayList<>();
    try {
      for (String id : List.of("elector-a", "elector-b")) {
        electors.add(start(namespace, id));
      }
      long reads = Duration.ofSeconds(4).toMillis() / RETRY.toMillis();
      Await.until(
          "each candidate looks at the Lease " + reads + " times",
          Duration.ofSeconds(30),
          () ->
              electors.stream()
                  .allMatch(e -> e.isLeader() || e.stats().calls(LockCall.READ) >= reads));

      V1Lease after = leases.readNamespacedLease("coordinated", namespace.name()).execute();
      assertEquals(
          before.getMetadata().getResourceVersion(),
          after.getMetadata().getResourceVersion(),
          "nobody wrote the Lease");
      for (LeaderElector elector : electors) {
        assertFalse(elector.isLeader(), elector.identity());
        assertTrue(
            elector.stats().status().contains("chosen by coordinated leader election"),
            elector.stats().status());
      }
    } finally {
      electors.forEach(LeaderElector::close);
    }
  }

  private static LeaderElector start(KubeNamespace namespace, String id) {
    return LeaderElector.start(
        ElectorConfig.newBuilder()
            .lock(
                Fabric8LeaseLock.newBuilder(clients.of(cluster, cluster.admin()))
                    .namespace(namespace.name())
                    .name("coordinated")
                    .identity(id)
                    .build())
            .leaseDuration(Duration.ofSeconds(2))
            .renewDeadline(Duration.ofSeconds(1))
            .retryPeriod(RETRY)
            .watchWhenFollowing(false)
            .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
            .build());
  }
}
