package dev.elector.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.controller.ControllerConfig;
import dev.elector.controller.IPPoolController;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.lab.NetLab;
import dev.elector.dhcp.lab.Udhcpc;
import dev.elector.dhcp.server.StaticDhcpServerMain;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Taking over a cluster that ran upstream's vm-dhcp-controller. The IPPool and the
 * VirtualMachineNetworkConfig are stored as upstream leaves them (test resource upstream-state,
 * written from upstream's CRDs: its IPAM snapshot in the pool's status, its wrangler finalizers),
 * and upstream's agent pod of the pool runs: a pod object named as upstream names it, and a DHCP
 * server in a network namespace on the pool's segment with the pool's server address, from which a
 * VM with a real DHCP client holds 192.168.48.157. What upstream's webhook server wrote outside its
 * release is there too (test resource upstream-state/webhook-leftovers.yaml): its validating
 * webhook configuration refuses every write of the pool until the controller deletes it.
 *
 * <p>The controller starts with the upstream agent namespace set. It adopts the allocation (no
 * address changes), replaces upstream's finalizers, renders its own agent, and deletes upstream's
 * agent pod only once its own agent serves; the test plays the kubelet and stops upstream's server
 * when its pod is deleted. The VM's next renewal is answered by the new agent with the same
 * address: DHCP was never without a server, and upstream's webhook leftovers are gone. Prints the
 * figures of the hand-over.
 *
 * <p>Needs root and the lab tools (scripts/install-dhcp-client.sh); fails rather than skips without
 * them, unless ELECTOR_SKIP_NETNS_TESTS=true.
 */
@KubeTest
class UpstreamMigrationIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final MacAddress VM = MacAddress.parse("52:54:00:48:01:57");
  private static final String ADDRESS = "192.168.48.157";
  private static final String SERVER = "192.168.48.2";
  private static final String UPSTREAM_FINALIZER_PREFIX = "wrangler.cattle.io/";

  @TempDir Path work;

  @Test
  void aClusterLeftByUpstreamIsTakenOverWithTheSameAddressesAndNoGapInDhcp(
      KubeCluster cluster, KubeNamespace home) throws Exception {
    LabClusters.prepare(cluster, WAIT);
    String ns = home.name();
    storeAsUpstreamLeftIt(cluster, ns);
    writeUpstreamsWebhookLeftovers(cluster, ns);
    String upstreamPod = ns + "-net-48-agent";
    CoreV1Api core = new CoreV1Api(cluster.admin());
    core.createNamespacedPod(
            ns,
            new V1Pod()
                .metadata(new V1ObjectMeta().name(upstreamPod))
                .spec(
                    new V1PodSpec()
                        .overhead(
                            null) // the model's empty default is refused without a RuntimeClass
                        .containers(
                            List.of(
                                new V1Container()
                                    .name("agent")
                                    .image("rancher/harvester-vm-dhcp-agent:v0.3.3")))))
        .execute();

    List<EventLine> agentEvents = new CopyOnWriteArrayList<>();
    try (NetLab lab = NetLab.create();
        LocalKubelet kubelet =
            new LocalKubelet(
                cluster,
                Optional.of(lab),
                work,
                List.of(
                    "--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "500ms"),
                agentEvents::add)) {
      // upstream's agent: the pool's server address on the segment, serving the VM's allocation
      NetLab.Host upstream = lab.addHost("upstream", "eth0", Optional.empty());
      assertTrue(upstream.run(10, "ip", "addr", "add", SERVER + "/24", "dev", "eth0").ok());
      Process upstreamServer = startUpstreamServer(upstream);
      NetLab.Host vmHost = lab.addHost("vm", "eth0", Optional.of(VM));
      Udhcpc vm = new Udhcpc(vmHost, work.resolve("vm-dhcp"));
      vm.start();
      Map<String, String> before = vm.await("bound", WAIT);
      assertEquals(ADDRESS, before.get("ip"), "the VM holds upstream's allocation: " + before);
      assertTrue(upstreamServer.isAlive());

      long controllerStart = System.nanoTime();
      IPPoolController controller =
          IPPoolController.start(
              cluster.admin(),
              ControllerConfig.newBuilder()
                  .identity("migration-it")
                  .leaseNamespace(ns)
                  .leaseDuration(Duration.ofSeconds(3))
                  .renewDeadline(Duration.ofSeconds(2))
                  .retryPeriod(Duration.ofMillis(500))
                  .agentReplicas(1)
                  .upstreamAgentNamespace(ns)
                  .build());
      try {
        AppsV1Api apps = new AppsV1Api(cluster.admin());
        // in the controller's namespace, named as upstream names its agent pod (whose own pods
        // then are <name>-<hash>-<suffix>, so the two never share a name)
        String agentDeployment = ns + "-net-48-agent";
        V1Deployment deployment =
            Waits.until(
                "the controller renders its agent Deployment",
                WAIT,
                () -> read(() -> apps.readNamespacedDeployment(agentDeployment, ns).execute()));
        // Before its agent serves, upstream's agent stays: two servers must not both answer long.
        assertTrue(podExists(core, ns, upstreamPod), "upstream's agent stays until ours serves");

        LocalKubelet.Pod agent = kubelet.sync(deployment).get(0);
        EventLine serving =
            agent.log().awaitFirst(e -> e.kind().equals("serving"), WAIT, "serving event");
        // The kubelet reports the agent ready once its /readyz says so, which it does when it
        // serves; the controller deletes upstream's pod only then.
        assertTrue(podExists(core, ns, upstreamPod), "upstream's agent stays until ours is ready");
        V1Deployment live = apps.readNamespacedDeployment(agentDeployment, ns).execute();
        live.status(new V1DeploymentStatus().replicas(1).readyReplicas(1));
        apps.replaceNamespacedDeploymentStatus(agentDeployment, ns, live).execute();

        Await.until(
            "the controller deletes upstream's agent pod once its own agent serves",
            WAIT,
            () -> !podExists(core, ns, upstreamPod));
        long upstreamStopped = System.nanoTime();
        upstream.delete(); // the kubelet stops the deleted pod's container
        assertFalse(upstreamServer.isAlive());

        vm.forget("renew");
        long renewAsked = System.nanoTime();
        vm.renewNow();
        Map<String, String> after = vm.await("renew", WAIT);
        long renewed = System.nanoTime();
        assertEquals(ADDRESS, after.get("ip"), "the VM keeps its address: " + after);
        assertEquals(SERVER, after.get("serverid"), after.toString());
        EventLine answer =
            agent
                .log()
                .awaitFirst(
                    e ->
                        e.kind().equals("reply")
                            && e.get("mac").equalsIgnoreCase(VM.toString())
                            && e.monoNanos() > upstreamStopped,
                    Duration.ofSeconds(10),
                    "the new agent's reply to the VM");
        assertEquals(ADDRESS, answer.get("ip"));
        assertEquals("ACKED", answer.get("kind"));

        assertAdopted(cluster, ns);
        for (Map.Entry<String, DynamicKubernetesApi> leftover : leftovers(cluster).entrySet()) {
          String name = leftover.getKey().substring(leftover.getKey().indexOf(' ') + 1);
          int code =
              leftover.getKey().startsWith("Secret")
                  ? leftover.getValue().get(ns, name).getHttpStatusCode()
                  : leftover.getValue().get(name).getHttpStatusCode();
          assertEquals(404, code, "upstream's leftover " + leftover.getKey() + " is deleted");
        }

        long overlapMillis = (upstreamStopped - serving.monoNanos()) / 1_000_000;
        assertTrue(
            overlapMillis > 0,
            "the new agent served before upstream's stopped: no gap in DHCP service");
        System.out.printf(
            "FIGURE upstream migration: controller start to own agent serving %d ms (the test"
                + " starts the agent process), two servers on the segment %d ms, gap without a"
                + " server 0 ms, renewal after the hand-over answered in %d ms, address %s"
                + " unchanged%n",
            (serving.monoNanos() - controllerStart) / 1_000_000,
            overlapMillis,
            (renewed - renewAsked) / 1_000_000,
            ADDRESS);
      } finally {
        vm.close();
        controller.close();
        // cluster-wide: never left for the test classes after this one
        leftovers(cluster)
            .forEach(
                (what, api) -> {
                  if (what.endsWith("WebhookConfiguration " + WEBHOOK)) {
                    api.delete(WEBHOOK);
                  }
                });
      }
    }
  }

  /** Creates the fixtures, then writes their status as upstream's controller had written it. */
  private static void storeAsUpstreamLeftIt(KubeCluster cluster, String ns) throws Exception {
    String yaml =
        new String(
                Objects.requireNonNull(
                        UpstreamMigrationIT.class.getResourceAsStream(
                            "/upstream-state/net-48.yaml"))
                    .readAllBytes(),
                StandardCharsets.UTF_8)
            .replace("NAMESPACE", ns);
    for (String document : yaml.split("(?m)^---$")) {
      DynamicKubernetesObject object = Dynamics.newFromYaml(document);
      String resource =
          object.getKind().equals("IPPool") ? NetworkApis.IPPOOLS : NetworkApis.VM_NETWORK_CONFIGS;
      DynamicKubernetesApi api =
          new DynamicKubernetesApi(
              NetworkApis.GROUP, NetworkApis.VERSION, resource, cluster.admin());
      DynamicKubernetesObject created = api.create(object).throwsApiException().getObject();
      created.getRaw().add("status", object.getRaw().get("status"));
      new CustomObjectsApi(cluster.admin())
          .replaceNamespacedCustomObjectStatus(
              NetworkApis.GROUP,
              NetworkApis.VERSION,
              ns,
              resource,
              created.getMetadata().getName(),
              Dynamics.newFromJson(created.getRaw().toString()).getRaw())
          .execute();
    }
  }

  private static final String WEBHOOK = "harvester-vm-dhcp-controller-webhook";

  /**
   * Writes what upstream's webhook server left when upstream's add-on was disabled (test resource
   * upstream-state/webhook-leftovers.yaml): its webhook configurations, the validating one refusing
   * every IPPool write since its Service is gone, and its certificate Secrets.
   */
  private static void writeUpstreamsWebhookLeftovers(KubeCluster cluster, String ns)
      throws Exception {
    String yaml =
        new String(
                Objects.requireNonNull(
                        UpstreamMigrationIT.class.getResourceAsStream(
                            "/upstream-state/webhook-leftovers.yaml"))
                    .readAllBytes(),
                StandardCharsets.UTF_8)
            .replace("NAMESPACE", ns);
    Map<String, DynamicKubernetesApi> apis = leftovers(cluster);
    for (String document : yaml.split("(?m)^---$")) {
      DynamicKubernetesObject object = Dynamics.newFromYaml(document);
      apis.get(object.getKind() + " " + object.getMetadata().getName())
          .create(object)
          .throwsApiException();
    }
  }

  /** The API of each of upstream's leftovers, by kind and name. */
  private static Map<String, DynamicKubernetesApi> leftovers(KubeCluster cluster) {
    DynamicKubernetesApi secrets = new DynamicKubernetesApi("", "v1", "secrets", cluster.admin());
    return Map.of(
        "ValidatingWebhookConfiguration " + WEBHOOK,
        new DynamicKubernetesApi(
            "admissionregistration.k8s.io",
            "v1",
            "validatingwebhookconfigurations",
            cluster.admin()),
        "MutatingWebhookConfiguration " + WEBHOOK,
        new DynamicKubernetesApi(
            "admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", cluster.admin()),
        "Secret " + WEBHOOK + "-ca",
        secrets,
        "Secret " + WEBHOOK + "-tls",
        secrets);
  }

  private Process startUpstreamServer(NetLab.Host host) throws IOException {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    return host.start(
        List.of(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            StaticDhcpServerMain.class.getName(),
            "--bind",
            SERVER,
            "--port",
            "67",
            "--cidr",
            "192.168.48.0/24",
            "--router",
            "192.168.48.1",
            "--dns",
            "192.168.48.53",
            "--lease-time",
            "300",
            "--lease",
            VM + "=" + ADDRESS),
        work.resolve("upstream-agent.log"));
  }

  /**
   * The controller kept upstream's allocation, in the pool's status and the VM config's, and
   * replaced upstream's finalizers with its own.
   */
  private static void assertAdopted(KubeCluster cluster, String ns) throws Exception {
    AtomicReference<String> seen = new AtomicReference<>("");
    Await.until(
        "the pool and the VM config adopted, with upstream's finalizers replaced",
        WAIT,
        () -> {
          IPPool pool =
              NetworkApis.ipPools(cluster.admin())
                  .get(ns, "net-48")
                  .throwsApiException()
                  .getObject();
          VirtualMachineNetworkConfig config =
              NetworkApis.vmNetworkConfigs(cluster.admin())
                  .get(ns, "vm-1")
                  .throwsApiException()
                  .getObject();
          seen.set(
              "pool finalizers "
                  + pool.getMetadata().getFinalizers()
                  + ", config finalizers "
                  + config.getMetadata().getFinalizers());
          return ownFinalizersOnly(pool.getMetadata().getFinalizers())
              && ownFinalizersOnly(config.getMetadata().getFinalizers());
        });
    IPPool pool =
        NetworkApis.ipPools(cluster.admin()).get(ns, "net-48").throwsApiException().getObject();
    assertEquals(
        VM.toString(),
        pool.getStatus().getIpv4().getAllocated().get(ADDRESS),
        "the pool's status keeps the VM's allocation: " + pool.getStatus().getIpv4());
    assertEquals(1, pool.getStatus().getIpv4().getUsed(), seen.get());
    VirtualMachineNetworkConfig config =
        NetworkApis.vmNetworkConfigs(cluster.admin())
            .get(ns, "vm-1")
            .throwsApiException()
            .getObject();
    assertEquals(
        ADDRESS,
        config.getStatus().getNetworkConfigs().get(0).getAllocatedIPAddress(),
        "the VM config keeps its address");
  }

  private static boolean ownFinalizersOnly(List<String> finalizers) {
    return finalizers != null
        && !finalizers.isEmpty()
        && finalizers.stream().noneMatch(f -> f.startsWith(UPSTREAM_FINALIZER_PREFIX));
  }

  private static boolean podExists(CoreV1Api core, String ns, String name) throws ApiException {
    try {
      core.readNamespacedPod(name, ns).execute();
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private interface Read<T> {
    T get() throws ApiException;
  }

  private static <T> Optional<T> read(Read<T> call) throws ApiException {
    try {
      return Optional.of(call.get());
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
