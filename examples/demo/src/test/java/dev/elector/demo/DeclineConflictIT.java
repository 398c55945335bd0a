package dev.elector.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.controller.ControllerConfig;
import dev.elector.controller.IPPoolController;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.lab.NetLab;
import dev.elector.dhcp.lab.Udhcpc;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.Pool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DHCPDECLINE is a conflict (RFC 2131 4.3.3), end to end: another host already holds the VM's
 * allocated address, so the VM's real client (udhcpc -a) finds it in use with its ARP probe and
 * declines it. The agent stops offering it to that MAC and reports it on the pool; the controller
 * marks it CONFLICT in the pool's status and allocates the VM another address, which the client
 * then binds, with no DECLINE/OFFER loop. An operator's annotation frees the address again.
 *
 * <p>Needs root and the lab tools; fails rather than skips without them, unless
 * ELECTOR_SKIP_NETNS_TESTS=true.
 */
@KubeTest
class DeclineConflictIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final MacAddress VM = MacAddress.parse("52:54:00:77:00:01");

  @TempDir Path work;

  @Test
  void aDeclinedAddressIsTakenOutOfUseAndTheVmBindsAnotherWithoutALoop(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    LabClusters.prepare(cluster, WAIT);
    String ns = namespace.name();
    IPPoolController controller =
        IPPoolController.start(
            cluster.admin(),
            ControllerConfig.newBuilder()
                .identity("decline-it")
                .leaseNamespace(ns)
                .leaseDuration(Duration.ofSeconds(3))
                .renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(500))
                .agentReplicas(1)
                .build());
    List<EventLine> agentEvents = new CopyOnWriteArrayList<>();
    try (NetLab lab = NetLab.create()) {
      NetworkApis.ipPools(cluster.admin())
          .create(
              new IPPool()
                  .metadata(new V1ObjectMeta().namespace(ns).name("lab"))
                  .spec(
                      new IPPoolSpec()
                          .networkName(ns + "/lab")
                          .ipv4Config(
                              new IPv4Config()
                                  .cidr("10.77.0.0/24")
                                  .serverIP("10.77.0.2")
                                  .router("10.77.0.1")
                                  .pool(new Pool().start("10.77.0.10").end("10.77.0.20"))
                                  .leaseTime(120))))
          .throwsApiException();
      NetworkApis.vmNetworkConfigs(cluster.admin())
          .create(
              new VirtualMachineNetworkConfig()
                  .metadata(new V1ObjectMeta().namespace(ns).name("vm"))
                  .spec(
                      new VirtualMachineNetworkConfig.Spec()
                          .vmName("vm")
                          .networkConfigs(
                              List.of(
                                  new VirtualMachineNetworkConfig.NetworkConfig()
                                      .networkName(ns + "/lab")
                                      .macAddress(VM.toString())))))
          .throwsApiException();
      Await.until(
          "vm gets 10.77.0.10",
          WAIT,
          () -> "10.77.0.10".equals(nic(cluster, ns).getAllocatedIPAddress()));

      AtomicReference<V1Deployment> deployment = new AtomicReference<>();
      Await.until(
          "the agent Deployment is rendered",
          WAIT,
          () -> {
            try {
              deployment.set(
                  new AppsV1Api(cluster.admin())
                      .readNamespacedDeployment(ns + "-lab-agent", ns)
                      .execute());
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
              agentEvents::add)) {
        LocalKubelet.Pod agent = kubelet.sync(deployment.get()).get(0);
        Await.until(
            "the agent serves",
            WAIT,
            () -> agentEvents.stream().anyMatch(e -> e.kind().equals("serving")));
        // Another host on the segment already uses the VM's address.
        NetLab.Host squatter = lab.addHost("squatter", "eth0", Optional.empty());
        assertTrue(squatter.run(5, "ip", "addr", "add", "10.77.0.10/24", "dev", "eth0").ok());

        NetLab.Host vm = lab.addHost("vm", "eth0", Optional.of(VM));
        long start = System.nanoTime();
        Map<String, String> bound =
            new Udhcpc(vm, work.resolve("client"))
                .once(20, List.of("-a", "-A", "1"))
                .orElseThrow(
                    () ->
                        new AssertionError(
                            "no lease; agent" + " log:\n" + read(agent.log().file())));
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("FIGURE decline-to-bound " + millis + " ms, bound " + bound);

        assertEquals("10.77.0.11", bound.get("ip"), bound.toString());
        // The controller removes the report with a write of its own after the status that handled
        // it, and writes the VM config's status after the pool's: the client may bind first.
        Await.until(
            "the report is removed from the pool once handled",
            WAIT,
            () -> {
              IPPool p =
                  NetworkApis.ipPools(cluster.admin())
                      .get(ns, "lab")
                      .throwsApiException()
                      .getObject();
              return p.getMetadata().getAnnotations() == null
                  || p.getMetadata().getAnnotations().keySet().stream()
                      .noneMatch(k -> k.startsWith("declined."));
            });
        Await.until(
            "the VM config's NIC says why it got another address",
            WAIT,
            () -> {
              NetworkConfigStatus now = nic(cluster, ns);
              return "10.77.0.11".equals(now.getAllocatedIPAddress())
                  && now.getMessage() != null
                  && now.getMessage().contains("10.77.0.10 was declined by the VM");
            });
        IPPool pool =
            NetworkApis.ipPools(cluster.admin()).get(ns, "lab").throwsApiException().getObject();
        Map<String, String> table = pool.getStatus().getIpv4().getAllocated();
        assertEquals(IPv4Status.CONFLICT, table.get("10.77.0.10"), table.toString());
        assertEquals(VM.toString(), table.get("10.77.0.11"), table.toString());
        assertTrue(
            pool.getMetadata().getAnnotations() == null
                || pool.getMetadata().getAnnotations().keySet().stream()
                    .noneMatch(k -> k.startsWith("declined.")),
            "the report is removed once handled: " + pool.getMetadata().getAnnotations());
        NetworkConfigStatus nic = nic(cluster, ns);
        assertEquals("10.77.0.11", nic.getAllocatedIPAddress());
        assertTrue(
            nic.getMessage() != null
                && nic.getMessage().contains("10.77.0.10 was declined by the VM"),
            String.valueOf(nic.getMessage()));
        Await.until(
            "a Warning event AddressConflict on the VM config",
            WAIT,
            () ->
                new CoreV1Api(cluster.admin())
                        .listNamespacedEvent(ns)
                        .fieldSelector("involvedObject.name=vm")
                        .execute()
                        .getItems()
                        .stream()
                        .anyMatch(
                            e ->
                                "AddressConflict".equals(e.getReason())
                                    && "Warning".equals(e.getType())));
        // No loop: 10.77.0.10 was offered once, declined once, and never offered again.
        long offersOfConflict =
            agentEvents.stream()
                .filter(
                    e ->
                        e.kind().equals("reply")
                            && "10.77.0.10".equals(e.get("ip"))
                            && "OFFERED".equals(e.get("kind")))
                .count();
        String metrics =
            agent
                .host()
                .orElseThrow()
                .run(5, "curl", "-s", "http://127.0.0.1:8080/metrics")
                .output();
        double declines =
            metrics
                .lines()
                .filter(l -> l.startsWith("dhcp_agent_declines_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
        System.out.println(
            "FIGURE offers-of-declined-address " + offersOfConflict + ", declines " + declines);
        assertEquals(1, offersOfConflict, agentEvents.toString());
        assertEquals(1.0, declines, metrics);

        // The operator clears the conflict once the other host is gone.
        NetworkApis.ipPools(cluster.admin())
            .patch(
                ns,
                "lab",
                io.kubernetes.client.custom.V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
                new io.kubernetes.client.custom.V1Patch(
                    "{\"metadata\":{\"annotations\":{"
                        + "\"network.harvesterhci.io/clear-conflicts\":\"10.77.0.10\"}}}"))
            .throwsApiException();
        Await.until(
            "10.77.0.10 is free again",
            WAIT,
            () -> {
              IPPool p =
                  NetworkApis.ipPools(cluster.admin())
                      .get(ns, "lab")
                      .throwsApiException()
                      .getObject();
              return !p.getStatus().getIpv4().getAllocated().containsKey("10.77.0.10")
                  && (p.getMetadata().getAnnotations() == null
                      || !p.getMetadata()
                          .getAnnotations()
                          .containsKey("network.harvesterhci.io/clear-conflicts"));
            });
      }
    } finally {
      controller.close();
    }
  }

  private static NetworkConfigStatus nic(KubeCluster cluster, String ns) throws Exception {
    VirtualMachineNetworkConfig c =
        NetworkApis.vmNetworkConfigs(cluster.admin())
            .get(ns, "vm")
            .throwsApiException()
            .getObject();
    return c.getStatus() == null || c.getStatus().getNetworkConfigs().isEmpty()
        ? new NetworkConfigStatus()
        : c.getStatus().getNetworkConfigs().get(0);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
