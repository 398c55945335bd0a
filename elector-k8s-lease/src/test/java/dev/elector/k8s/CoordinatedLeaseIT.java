package dev.elector.k8s;

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
import io.kubernetes.client.openapi.apis.CoordinationV1beta1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1beta1LeaseCandidate;
import io.kubernetes.client.openapi.models.V1beta1LeaseCandidateSpec;
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
 * Kubernetes' coordinated leader election on a control plane of its own, started with the feature
 * gate {@code CoordinatedLeaderElection} and the API {@code coordination.k8s.io/v1beta1} on: a
 * Lease naming {@code spec.strategy} is followed and never written by Elector's candidates, even
 * once it looks long expired, whether an operator wrote it or the API server's own coordinated
 * election controller chose its holder from a {@code LeaseCandidate}. Timings: lease 2 s, renew
 * deadline 1 s, retry 0.25 s; the candidates poll, and look at the Lease until it has looked
 * expired for two of their leases.
 */
class CoordinatedLeaseIT {
  private static final String STRATEGY = "OldestEmulationVersion";
  private static final List<String> GATE_ON =
      List.of(
          "--apiserver-arg=--feature-gates=CoordinatedLeaderElection=true",
          "--apiserver-arg=--runtime-config=coordination.k8s.io/v1beta1=true");

  /** The candidates' retry period: they read the Lease this often. */
  private static final Duration RETRY = Duration.ofMillis(250);

  private static KubeCluster cluster;

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
            GATE_ON);
    cluster =
        KubeCluster.fromKubeconfig(
            "local control plane " + plane.version() + " with CoordinatedLeaderElection",
            plane.kubeconfig(),
            plane);
  }

  @AfterAll
  static void stop() {
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
                        .holderIdentity("kube-controller-manager-a")
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

    List<LeaderElector> electors = start(namespace, "coordinated", "elector-a", "elector-b");
    try {
      awaitLooks(electors, Duration.ofSeconds(4)); // two of their leases, four of the record's

      V1Lease after = leases.readNamespacedLease("coordinated", namespace.name()).execute();
      assertEquals(
          before.getMetadata().getResourceVersion(),
          after.getMetadata().getResourceVersion(),
          "nobody wrote the Lease");
      for (LeaderElector elector : electors) {
        assertFalse(elector.isLeader(), elector.identity());
        assertEquals(0, elector.stats().calls(LockCall.ACQUIRE) - firstLook(elector));
        assertTrue(
            elector
                .stats()
                .status()
                .contains(
                    "following kube-controller-manager-a, chosen by coordinated leader election"
                        + " (strategy "
                        + STRATEGY
                        + ")"),
            elector.stats().status());
      }
    } finally {
      electors.forEach(LeaderElector::close);
    }
  }

  @Test
  void aHolderChosenByTheApiServersControllerIsFollowed() throws Exception {
    KubeNamespace namespace = cluster.createNamespace("controller");
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    new CoordinationV1beta1Api(cluster.admin())
        .createNamespacedLeaseCandidate(
            namespace.name(),
            new V1beta1LeaseCandidate()
                .metadata(new V1ObjectMeta().name("component-a"))
                .spec(
                    new V1beta1LeaseCandidateSpec()
                        .leaseName("chosen")
                        .binaryVersion("1.37.2")
                        .emulationVersion("1.37.0")
                        .strategy(STRATEGY)
                        .renewTime(now)
                        .pingTime(now)))
        .execute();
    CoordinationV1Api leases = new CoordinationV1Api(cluster.admin());
    Await.until(
        "the controller elects component-a",
        Duration.ofSeconds(60),
        () -> {
          try {
            V1LeaseSpec spec =
                leases.readNamespacedLease("chosen", namespace.name()).execute().getSpec();
            return spec != null && "component-a".equals(spec.getHolderIdentity());
          } catch (io.kubernetes.client.openapi.ApiException e) {
            return false;
          }
        });
    V1LeaseSpec elected =
        Objects.requireNonNull(
            leases.readNamespacedLease("chosen", namespace.name()).execute().getSpec());
    assertEquals(STRATEGY, elected.getStrategy());

    List<LeaderElector> electors = start(namespace, "chosen", "elector-a", "elector-b");
    try {
      // component-a never renews: the Lease looks expired a lease after the candidates saw it
      int seconds = Objects.requireNonNullElse(elected.getLeaseDurationSeconds(), 15);
      awaitLooks(electors, Duration.ofSeconds(seconds + 4L));
      for (LeaderElector elector : electors) {
        assertFalse(elector.isLeader(), elector.identity());
        assertEquals(0, elector.stats().calls(LockCall.ACQUIRE) - firstLook(elector));
      }
      V1LeaseSpec after =
          Objects.requireNonNull(
              leases.readNamespacedLease("chosen", namespace.name()).execute().getSpec());
      assertFalse(
          after.getHolderIdentity() != null && after.getHolderIdentity().startsWith("elector-"),
          "held by " + after.getHolderIdentity());
    } finally {
      electors.forEach(LeaderElector::close);
    }
  }

  /** The first look's create, refused because the Lease exists: not a write of it. */
  private static long firstLook(LeaderElector elector) {
    return Math.min(1, elector.stats().calls(LockCall.ACQUIRE));
  }

  /**
   * Waits until each candidate has read the Lease as many times as it does in {@code span}, or has
   * taken it (which the test then reports).
   */
  private static void awaitLooks(List<LeaderElector> electors, Duration span) {
    long reads = span.toMillis() / RETRY.toMillis();
    Await.until(
        "each candidate looks at the Lease " + reads + " times",
        span.multipliedBy(4),
        () ->
            electors.stream()
                .allMatch(e -> e.isLeader() || e.stats().calls(LockCall.READ) >= reads));
  }

  /** Polling candidates (no watch), so that they look at the Lease every retry period. */
  private static List<LeaderElector> start(KubeNamespace namespace, String name, String... ids) {
    List<LeaderElector> electors = new ArrayList<>();
    for (String id : ids) {
      electors.add(
          LeaderElector.start(
              ElectorConfig.newBuilder()
                  .lock(
                      LeaseLock.newBuilder(cluster.admin())
                          .namespace(namespace.name())
                          .name(name)
                          .identity(id)
                          .build())
                  .leaseDuration(Duration.ofSeconds(2))
                  .renewDeadline(Duration.ofSeconds(1))
                  .retryPeriod(RETRY)
                  .watchWhenFollowing(false)
                  .callbacks(LeaderCallbacks.of(term -> {}, (term, reason) -> {}))
                  .build()));
    }
    return electors;
  }
}
