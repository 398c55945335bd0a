package dev.elector.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.controller.ControllerConfig;
import dev.elector.controller.IPPoolController;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.lab.NetLab;
import dev.elector.dhcp.lab.Udhcpc;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IPPool and VirtualMachineNetworkConfig examples of the upstream vm-dhcp-controller's README,
 * kept verbatim in deploy/upstream-examples, applied as they are (namespace default included) and
 * served end to end: the controller allocates test-vm's address and renders the agent Deployment,
 * whose pod runs as a process in a network namespace, and a real DHCP client with test-vm's MAC
 * gets that address with every option of the pool.
 *
 * <p>Needs root and the lab tools (scripts/install-dhcp-client.sh); fails rather than skips without
 * them, unless ELECTOR_SKIP_NETNS_TESTS=true.
 */
@KubeTest
class UpstreamManifestsIT {
  static final Path EXAMPLES = Path.of("..", "..", "deploy", "upstream-examples");
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final MacAddress TEST_VM = MacAddress.parse("fa:cf:8e:50:82:fc");

  @TempDir Path work;

  @Test
  void theUpstreamReadmeExamplesApplyAsTheyAreAndARealClientIsServed(
      KubeCluster cluster, KubeNamespace home) throws Exception {
    LabClusters.prepare(cluster, WAIT);

    DynamicKubernetesApi pools =
        new DynamicKubernetesApi(
            NetworkApis.GROUP, NetworkApis.VERSION, NetworkApis.IPPOOLS, cluster.admin());
    DynamicKubernetesApi configs =
        new DynamicKubernetesApi(
            NetworkApis.GROUP,
            NetworkApis.VERSION,
            NetworkApis.VM_NETWORK_CONFIGS,
            cluster.admin());
    IPPoolController controller =
        IPPoolController.start(
            cluster.admin(),
            ControllerConfig.newBuilder()
                .identity("upstream-it")
                .leaseNamespace(home.name())
                .leaseDuration(Duration.ofSeconds(3))
                .renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(500))
                .agentReplicas(1)
                .build());
    try (NetLab lab = NetLab.create()) {
      // Applied as written: the files are sent unchanged, namespace "default" and all.
      pools
          .create(Dynamics.newFromYaml(Files.readString(EXAMPLES.resolve("ippool-net-48.yaml"))))
          .throwsApiException();
      configs
          .create(Dynamics.newFromYaml(Files.readString(EXAMPLES.resolve("vmnetcfg-test-vm.yaml"))))
          .throwsApiException();

      AtomicReference<String> allocated = new AtomicReference<>();
      Await.until(
          "test-vm gets an address",
          WAIT,
          () -> {
            VirtualMachineNetworkConfig c =
                NetworkApis.vmNetworkConfigs(cluster.admin())
                    .get("default", "test-vm")
                    .throwsApiException()
                    .getObject();
            // the README's networkConfig (singular) is read as networkConfigs
            allocated.set(
                c.getStatus() == null || c.getStatus().getNetworkConfigs().isEmpty()
                    ? null
                    : c.getStatus().getNetworkConfigs().get(0).getAllocatedIPAddress());
            return allocated.get() != null;
          });
      assertEquals("192.168.48.82", allocated.get(), ".81 and .90 are excluded");
      IPPool pool =
          NetworkApis.ipPools(cluster.admin())
              .get("default", "net-48")
              .throwsApiException()
              .getObject();
      assertEquals(
          Map.of(
              "192.168.48.1",
              "RESERVED",
              "192.168.48.77",
              "RESERVED",
              "192.168.48.81",
              "EXCLUDED",
              "192.168.48.82",
              TEST_VM.toString(),
              "192.168.48.90",
              "EXCLUDED"),
          pool.getStatus().getIpv4().getAllocated());
      assertEquals(
          List.of(1, 7),
          List.of(pool.getStatus().getIpv4().getUsed(), pool.getStatus().getIpv4().getAvailable()));

      AppsV1Api apps = new AppsV1Api(cluster.admin());
      AtomicReference<V1Deployment> deployment = new AtomicReference<>();
      Await.until(
          "the agent Deployment is rendered",
          WAIT,
          () -> {
            try {
              deployment.set(
                  apps.readNamespacedDeployment("default-net-48-agent", home.name()).execute());
              return true;
            } catch (io.kubernetes.client.openapi.ApiException e) {
              return false;
            }
          });
      try (LocalKubelet kubelet =
          new LocalKubelet(
              cluster,
              Optional.of(lab),
              work,
              List.of(
                  "--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "500ms"),
              e -> {})) {
        LocalKubelet.Pod agent = kubelet.sync(deployment.get()).get(0);
        NetLab.Host vm = lab.addHost("vm", "eth0", Optional.of(TEST_VM));
        Map<String, String> bound =
            new Udhcpc(vm, work.resolve("client"))
                .once(30)
                .orElseThrow(() -> new AssertionError("no lease; agent log:\n" + log(agent)));
        assertEquals("192.168.48.82", bound.get("ip"), bound.toString());
        assertEquals("255.255.255.0", bound.get("subnet"));
        assertEquals("192.168.48.1", bound.get("router"));
        assertEquals("1.1.1.1", bound.get("dns"));
        assertEquals("aibao.moe", bound.get("domain"));
        assertEquals("aibao.moe", bound.get("search"));
        assertEquals("300", bound.get("lease"));
        assertEquals("192.168.48.77", bound.get("serverid"));
        // ntp: pool.ntp.org is resolved by the agent when it reads the pool; where it does not
        // resolve (the lab's namespaces reach no DNS server), it is left out and named.
        String ntp = bound.get("ntpsrv");
        if (ntp == null) {
          assertTrue(
              log(agent).contains("ntp host name pool.ntp.org does not resolve here"), log(agent));
        } else {
          for (String server : ntp.trim().split(" ")) {
            assertTrue(server.matches("\\d+\\.\\d+\\.\\d+\\.\\d+"), ntp);
          }
        }
      }
    } finally {
      configs.delete("default", "test-vm");
      pools.delete("default", "net-48");
      Await.until(
          "the examples are cleaned up",
          WAIT,
          () ->
              configs.get("default", "test-vm").getHttpStatusCode() == 404
                  && pools.get("default", "net-48").getHttpStatusCode() == 404);
      controller.close();
    }
  }

  private static String log(LocalKubelet.Pod agent) {
    try {
      return Files.readString(agent.log().file());
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
