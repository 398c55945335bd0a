package dev.elector.testenv.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A client-java client talking TLS to the real API server through the proxy, and the faults it
 * sees.
 */
@KubeTest
class FaultProxyIT {

  /** Starts a proxy to the API server and a client of its own that connects through it. */
  private static Setup through(KubeCluster cluster, KubeNamespace namespace, String name)
      throws Exception {
    URI server = URI.create(cluster.server());
    FaultProxy proxy =
        FaultProxy.newBuilder()
            .name(name)
            .target(new InetSocketAddress(server.getHost(), server.getPort()))
            .start();
    KubeIdentity identity = cluster.newIdentity(namespace, name);
    cluster.grant(
        identity,
        namespace,
        List.of(
            new V1PolicyRule()
                .apiGroups(List.of("coordination.k8s.io"))
                .resources(List.of("leases"))
                .verbs(List.of("list"))));
    ApiClient client = identity.client();
    client.setBasePath("https://" + proxy.hostPort());
    client.setReadTimeout(1_000);
    CoordinationV1Api api = new CoordinationV1Api(client);
    Await.until(
        "the Role takes effect",
        Duration.ofSeconds(10),
        () -> api.listNamespacedLease(namespace.name()).execute() != null);
    return new Setup(proxy, client, api, namespace.name());
  }

  private record Setup(
      FaultProxy proxy, ApiClient client, CoordinationV1Api api, String namespace) {
    void list() throws ApiException {
      api.listNamespacedLease(namespace).execute();
    }
  }

  @Test
  void tlsVerifiesThroughTheProxyAndEveryByteIsCounted(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    Setup setup = through(cluster, namespace, "tls");
    try (FaultProxy proxy = setup.proxy()) {
      setup.list();

      assertTrue(proxy.stats().accepted() >= 1);
      assertTrue(
          proxy.stats().bytesToTarget() > 0 && proxy.stats().bytesToClient() > 0,
          proxy.stats().toString());
    }
  }

  @Test
  void aBlackholeTimesTheClientOutAndHealingLetsItThroughAgain(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    Setup setup = through(cluster, namespace, "blackhole");
    try (FaultProxy proxy = setup.proxy()) {
      proxy.blackhole();

      assertThrows(ApiException.class, setup::list);
      proxy.heal();
      Await.until(
          "calls succeed after healing",
          Duration.ofSeconds(10),
          () -> {
            setup.list();
            return true;
          });
    }
  }

  @Test
  void aResetAndRefusalLookLikeAServerOutage(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    Setup setup = through(cluster, namespace, "outage");
    try (FaultProxy proxy = setup.proxy()) {
      proxy.refuse().reset();

      ApiException down = assertThrows(ApiException.class, setup::list);
      assertEquals(0, down.getCode(), "no HTTP answer, only a transport error: " + down);
      assertTrue(proxy.stats().resets() >= 1);
      proxy.heal();
      setup.list();
    }
  }

  @Test
  void httpFaultsAnswerTheirShareWith500AndTheRestReachTheServer(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    Setup setup = through(cluster, namespace, "http-faults");
    HttpFaults faults = HttpFaults.withSeed(3).installOn(setup.client()).fail(0.5, 500);
    int failed = 0;
    try (FaultProxy proxy = setup.proxy()) {
      for (int i = 0; i < 20; i++) {
        try {
          setup.list();
        } catch (ApiException e) {
          assertEquals(500, e.getCode());
          failed++;
        }
      }
      assertEquals(0, proxy.stats().resets());
    }

    assertEquals(faults.injected(), failed);
    assertEquals(20 - failed, faults.passed());
    assertTrue(failed > 0 && failed < 20, failed + " of 20 failed");
  }
}
