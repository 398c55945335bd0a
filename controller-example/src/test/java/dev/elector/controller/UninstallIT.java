package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.Yaml;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The way back, on a real API server: a controller (under the shipped RBAC) has made agents, their
 * RBAC and Leases, and put its finalizers on pools and configs; {@code --uninstall} (under exactly
 * deploy/controller/uninstall-rbac.yaml, the rights of the chart's post-delete hook) waits while
 * the controller leads, and once the controller has stopped, removes all of it. The pools and the
 * configs stay, without any finalizer, so upstream's controller can take them again and anyone can
 * delete them at once. The API server is shared with the other test classes, whose pools the
 * controller here also serves: the checks are on this test's objects.
 */
@KubeTest
class UninstallIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Path UNINSTALL_RBAC =
      Path.of("..", "deploy", "controller", "uninstall-rbac.yaml");

  @Test
  void uninstallWaitsForTheControllerThenLeavesNothingItMade(
      KubeCluster cluster, KubeNamespace pools) throws Exception {
    try (ControllerHarness harness = ControllerHarness.create(cluster, "uninstall-it")) {
      String home = harness.home.name();
      ApiClient admin = cluster.admin();
      CoreV1Api core = new CoreV1Api(admin);
      // the certificate Secret the replicas would share through --webhook-secret
      core.createNamespacedSecret(
              home,
              new V1Secret()
                  .metadata(new V1ObjectMeta().name("vm-dhcp-webhook-tls"))
                  .type("kubernetes.io/tls")
                  .data(
                      Map.of(
                          "tls.crt", "c".getBytes(StandardCharsets.UTF_8),
                          "tls.key", "k".getBytes(StandardCharsets.UTF_8))))
          .execute();
      harness.start("replica-a", 2);
      harness.awaitLeader(WAIT);
      String ns = pools.name();
      harness.create(ControllerHarness.pool(ns, "p1", 41));
      harness.create(ControllerHarness.pool(ns, "p2", 42));
      harness.create(
          ControllerHarness.vmConfig(
              ns, "vm-1", List.of(ControllerHarness.nic(ns + "/p1", "52:54:00:41:00:01"))));
      Await.until(
          "the controller has made both agents, their RBAC and Leases' Role, and allocated vm-1",
          WAIT,
          () ->
              !harness.absent(() -> harness.agent(ns, "p1"))
                  && !harness.absent(() -> harness.agent(ns, "p2"))
                  && !harness.absent(
                      () ->
                          new RbacAuthorizationV1Api(admin)
                              .readNamespacedRoleBinding(AgentAccess.NAME, ns)
                              .execute())
                  && !harness.absent(
                      () ->
                          new RbacAuthorizationV1Api(admin)
                              .readNamespacedRoleBinding(AgentRole.LEASES, home)
                              .execute())
                  && harness.allocated(ns, "vm-1"));
      // an agent's Lease, as a running agent would have written it
      new CoordinationV1Api(admin)
          .createNamespacedLease(
              home,
              new io.kubernetes.client.openapi.models.V1Lease()
                  .metadata(new V1ObjectMeta().name(AgentDeployment.lockName(ns, "p1"))))
          .execute();

      KubeIdentity uninstaller = uninstallIdentity(cluster, harness);
      ControllerConfig config =
          ControllerConfig.newBuilder()
              .identity("uninstall-job")
              .leaseNamespace(home)
              .leaseDuration(ControllerHarness.LEASE)
              .renewDeadline(ControllerHarness.RENEW)
              .retryPeriod(ControllerHarness.RETRY)
              .build();

      // while the controller leads, the uninstall waits, and gives up naming the holder
      TimeoutException refused =
          assertThrows(
              TimeoutException.class,
              () ->
                  new Uninstall(uninstaller.client(), config, Optional.of("vm-dhcp-webhook-tls"))
                      .run(Duration.ofSeconds(2)));
      assertTrue(refused.getMessage().contains("replica-a"), refused.getMessage());
      assertTrue(hasOwnFinalizer(harness.read(ns, "p1")), "nothing removed while it leads");

      // the chart's hook runs after the controller's Deployment is deleted: the replica stops
      CompletableFuture<Uninstall.Report> uninstall =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return new Uninstall(
                          uninstaller.client(), config, Optional.of("vm-dhcp-webhook-tls"))
                      .run(WAIT);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      long stopped = System.nanoTime();
      harness.stop("replica-a");
      Uninstall.Report report = uninstall.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
      long done = System.nanoTime();

      // at least this test's objects: the API server is shared, and the uninstall, like the
      // controller it undoes, covers the pools and configs of every namespace
      assertTrue(report.poolFinalizers() >= 2, report.toString());
      assertTrue(report.configFinalizers() >= 1, report.toString());
      assertTrue(report.agentDeployments() >= 2, report.toString());
      for (String pool : List.of("p1", "p2")) {
        IPPool left = harness.read(ns, pool);
        assertEquals(List.of(), finalizers(left.getMetadata().getFinalizers()), pool);
      }
      VirtualMachineNetworkConfig config1 = harness.readConfig(ns, "vm-1");
      assertEquals(List.of(), finalizers(config1.getMetadata().getFinalizers()));
      AppsV1Api apps = new AppsV1Api(admin);
      assertEquals(
          List.of(),
          apps.listNamespacedDeployment(home)
              .labelSelector(AgentDeployment.LABEL_MANAGED_BY + "=" + AgentDeployment.MANAGER)
              .execute()
              .getItems());
      RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(admin);
      assertTrue(harness.absent(() -> rbac.readNamespacedRole(AgentAccess.NAME, ns).execute()));
      assertTrue(
          harness.absent(() -> rbac.readNamespacedRoleBinding(AgentAccess.NAME, ns).execute()));
      assertTrue(harness.absent(() -> rbac.readNamespacedRole(AgentRole.LEASES, home).execute()));
      assertTrue(
          harness.absent(() -> rbac.readNamespacedRoleBinding(AgentRole.LEASES, home).execute()));
      assertTrue(
          harness.absent(
              () -> core.readNamespacedServiceAccount(AgentAccess.NAME, home).execute()));
      assertTrue(
          harness.absent(() -> core.readNamespacedSecret("vm-dhcp-webhook-tls", home).execute()));
      CoordinationV1Api coordination = new CoordinationV1Api(admin);
      List<String> leases =
          coordination.listNamespacedLease(home).execute().getItems().stream()
              .map(l -> l.getMetadata().getName())
              .toList();
      assertEquals(List.of(), leases, "no Lease of the controller or its agents is left");

      // the way back to upstream: nothing holds a pool or a config any more
      harness.pools.delete(ns, "p2").throwsApiException();
      assertTrue(harness.absent(() -> harness.read(ns, "p2")), "deleted at once");
      System.out.printf(
          "FIGURE uninstall: waited for the controller, then %s in %d ms after the replica"
              + " stopped%n",
          report, (done - stopped) / 1_000_000);
    }
  }

  private static boolean hasOwnFinalizer(IPPool pool) {
    return pool.getMetadata().getFinalizers() != null
        && pool.getMetadata().getFinalizers().contains(PoolReconciler.FINALIZER);
  }

  private static List<String> finalizers(List<String> finalizers) {
    return finalizers == null ? List.of() : finalizers;
  }

  /** An identity holding exactly what deploy/controller/uninstall-rbac.yaml grants. */
  private static KubeIdentity uninstallIdentity(KubeCluster cluster, ControllerHarness harness)
      throws Exception {
    KubeIdentity identity = cluster.newIdentity(harness.home, "ippool-controller-uninstall");
    cluster.grant(identity, harness.home, KubeCluster.roleRules(UNINSTALL_RBAC));
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(cluster.admin());
    String name = "ippool-controller-uninstall-" + harness.home.name();
    for (Object document : Yaml.loadAll(UNINSTALL_RBAC.toFile())) {
      if (document instanceof V1ClusterRole role) {
        role.getMetadata().name(name);
        rbac.createClusterRole(role).execute();
      }
    }
    rbac.createClusterRoleBinding(
            new V1ClusterRoleBinding()
                .metadata(new V1ObjectMeta().name(name))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("ClusterRole")
                        .name(name))
                .subjects(List.of(identity.subject())))
        .execute();
    Await.until(
        "the uninstall rules take effect",
        WAIT,
        () -> {
          try {
            new CoordinationV1Api(identity.client())
                .listNamespacedLease(harness.home.name())
                .execute();
            return dev.elector.ippool.NetworkApis.ipPools(identity.client()).list().isSuccess();
          } catch (ApiException e) {
            return false;
          }
        });
    return identity;
  }
}
