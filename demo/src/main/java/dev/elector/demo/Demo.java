package dev.elector.demo;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.controller.ControllerMain;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.lab.NetLab;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.NetworkCrds;
import dev.elector.ippool.Pool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.LocalControlPlane;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The whole system on one machine, with one command: a real kube-apiserver (the local control plane
 * of {@code testenv/}, or a cluster from {@code --kubeconfig}), the CRDs and the shipped RBAC, two
 * replicas of the IPPool controller and the DHCP agent Deployment it renders, run as local
 * processes, an IPPool and a KubeVirt VirtualMachine (from which the controller makes the
 * VirtualMachineNetworkConfig), and a VM whose real DHCP client (Debian's udhcpc in a network
 * namespace) gets the address the controller allocated. Then the leading agent is killed and the
 * live timeline shows the handover; the VM renews its address from the new leader. A summary (who
 * led when, failover times, addresses served, checks) ends the run and is written as JSON.
 *
 * <pre>
 * Demo [--quick] [--no-netns] [--kubeconfig PATH] [--summary FILE] [--work DIR]
 * </pre>
 *
 * {@code --no-netns} runs without network namespaces even where the machine allows them, as the
 * demo does by itself where it does not (not root, no iproute2 or socat, or {@code --kubeconfig}).
 *
 * <p>Exits 0 when every check passed, 1 when one failed, 2 on bad arguments.
 */
public final class Demo {
  static final String CONTROLLER_NAMESPACE = "vm-dhcp-system";
  static final String CONTROLLER_SA = "ippool-controller";
  static final String POOL = "net-48";
  static final MacAddress VM_MAC = MacAddress.parse("52:54:00:48:00:01");

  /** The demo's settings. */
  record Options(
      boolean quick,
      boolean noNetns,
      Optional<Path> kubeconfig,
      Optional<Path> summary,
      Optional<Path> work,
      Path manifests) {

    static Options parse(String[] args) {
      boolean quick = false;
      boolean noNetns = false;
      Path kubeconfig = null;
      Path summary = null;
      Path work = null;
      Path manifests = Path.of("deploy");
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        switch (arg) {
          case "--quick" -> quick = true;
          case "--no-netns" -> noNetns = true;
          case "--kubeconfig" -> kubeconfig = Path.of(value(args, ++i, arg));
          case "--summary" -> summary = Path.of(value(args, ++i, arg));
          case "--work" -> work = Path.of(value(args, ++i, arg));
          case "--manifests" -> manifests = Path.of(value(args, ++i, arg));
          default ->
              throw new IllegalArgumentException(
                  "unknown argument '"
                      + arg
                      + "'; usage:"
                      + " Demo [--quick] [--no-netns] [--kubeconfig PATH] [--summary FILE] [--work DIR]");
        }
      }
      if (kubeconfig != null && !Files.isReadable(kubeconfig)) {
        throw new IllegalArgumentException("--kubeconfig " + kubeconfig + " cannot be read");
      }
      if (!Files.isReadable(manifests.resolve("controller/rbac.yaml"))) {
        throw new IllegalArgumentException(
            "cannot find "
                + manifests.resolve("controller/rbac.yaml")
                + "; run the demo from the repository root or pass"
                + " --manifests DIR");
      }
      return new Options(
          quick,
          noNetns,
          Optional.ofNullable(kubeconfig),
          Optional.ofNullable(summary),
          Optional.ofNullable(work),
          manifests);
    }

    private static String value(String[] args, int i, String flag) {
      if (i >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      return args[i];
    }

    /** Elector timings of the demo's processes: short, so a failover fits in a demo. */
    List<String> timings() {
      return quick
          ? List.of("--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "500ms")
          : List.of("--lease-duration", "4s", "--renew-deadline", "3s", "--retry-period", "1s");
    }
  }

  private final Options options;
  private final Progress progress;
  private final DemoSummary summary = new DemoSummary();
  private long killedAtMillis = -1;
  private final List<ProcessLog> controllerLogs = new ArrayList<>();

  /** Each controller replica's health address, from its HEALTH event. */
  private final Map<String, String> controllerHealth =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final List<Process> controllers = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private Path work;

  Demo(Options options, PrintStream out) {
    this.options = options;
    this.progress = new Progress(out, System.currentTimeMillis());
  }

  public static void main(String[] args) throws Exception {
    // The demo prints its own timeline; the libraries' INFO lines in this JVM would clutter it.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("demo: " + e.getMessage());
      System.exit(2);
      return;
    }
    DemoSummary summary = new Demo(options, System.out).run();
    System.exit(summary.ok() ? 0 : 1);
  }

  /** Runs the demo and returns its summary (also printed, and written if asked). */
  DemoSummary run() throws Exception {
    summary.vmMac = VM_MAC.toString();
    work =
        options.work().isPresent()
            ? Files.createDirectories(options.work().get())
            : Files.createTempDirectory("elector-demo-");
    progress.print(
        "Elector demo: leader-elected IPPool controller and DHCP agents on a real"
            + " kube-apiserver");
    progress.print("logs and kubeconfigs in " + work);
    KubeCluster cluster = cluster();
    Optional<NetLab> lab = Optional.empty();
    LocalKubelet kubelet = null;
    String namespace = null;
    try {
      progress.step("API server ready: " + cluster.description() + " at " + cluster.server());
      NetworkCrds.install(cluster.admin(), Duration.ofSeconds(60));
      progress.step(
          "CRDs installed: ippools and virtualmachinenetworkconfigs"
              + " (network.harvesterhci.io/v1alpha1)");
      List<String> applied =
          Manifests.apply(cluster.admin(), options.manifests().resolve("controller/rbac.yaml"));
      progress.step(
          "RBAC applied from deploy/controller/rbac.yaml: "
              + applied.size()
              + " objects (the controller's; it writes each pool namespace's agent Role)");
      namespace =
          "elector-demo-"
              + Long.toString(
                  ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36, 36L * 36 * 36 * 36 * 36),
                  36);
      Manifests.ensureNamespace(new CoreV1Api(cluster.admin()), namespace);

      Optional<String> noLab =
          options.kubeconfig().isPresent()
              ? Optional.of("--kubeconfig points at a cluster the network namespaces cannot reach")
              : options.noNetns()
                  ? Optional.of("--no-netns was given")
                  : NetLab.unavailableReason();
      if (noLab.isEmpty()) {
        lab = Optional.of(NetLab.create());
        summary.dhcp =
            "real client: Debian busybox udhcpc in a network namespace on the pool's"
                + " L2 segment; agents in namespaces of their own";
      } else {
        summary.dhcp =
            "no real DHCP exchange ("
                + noLab.get()
                + "); agents run in --dry-run"
                + " mode and the VM's lease is read from the leading agent's /leases endpoint";
        progress.step("network namespaces are not available here: " + noLab.get());
        progress.step(
            "instead: agents run without touching interfaces, and the demo reads the"
                + " VM's lease from the leader's /leases instead of running a DHCP client");
      }

      ensureKubeVirt(cluster);
      startControllers(cluster);
      awaitEvent(
          controllerLogs,
          e -> e.kind().equals("leading"),
          Duration.ofSeconds(60),
          "a controller leading");

      ensureNetwork(cluster, namespace);
      createPoolAndVm(cluster, namespace);
      summary.allocatedIp = awaitAllocation(cluster, namespace, Duration.ofSeconds(60));
      checkConfigFromVm(cluster, namespace);
      progress.step(
          "the controller allocated " + summary.allocatedIp + " to vm-1 (" + VM_MAC + ")");

      V1Deployment deployment = awaitDeployment(cluster, namespace, Duration.ofSeconds(60));
      progress.step(
          "the controller rendered Deployment "
              + namespace
              + "/"
              + deployment.getMetadata().getName()
              + " ("
              + deployment.getSpec().getReplicas()
              + " replicas); the demo runs its pods as local processes");
      List<String> agentArgs = new ArrayList<>(options.timings());
      kubelet = new LocalKubelet(cluster, lab, work, agentArgs, this::onAgentEvent);
      for (LocalKubelet.Pod pod : syncWithRetry(kubelet, deployment)) {
        progress.step(
            "started agent pod "
                + pod.name()
                + pod.host().map(h -> " in network" + " namespace " + h.namespace()).orElse(""));
      }
      LocalKubelet.Pod leader = awaitServingAgent(kubelet, null, Duration.ofSeconds(60));

      VmClient vm = lab.isPresent() ? new VmClient(lab.get(), "vm1", VM_MAC, work) : null;
      firstLease(kubelet, leader, vm);
      failover(cluster, namespace, kubelet, leader, vm, deployment);
      observability(cluster, namespace);
      conclude(kubelet, lab);
      if (vm != null) {
        vm.close();
      }
    } catch (Exception | AssertionError e) {
      summary.check("the demo ran to the end (" + e + ")", false);
      progress.step("FAILED: " + e);
    } finally {
      if (kubelet != null) {
        kubelet.close();
      }
      stopControllers(cluster, namespace);
      lab.ifPresent(NetLab::close);
      cluster.close();
    }
    summary.render(progress);
    Path file = options.summary().orElse(work.resolve("demo-summary.json"));
    summary.write(file);
    progress.print("summary written to " + file);
    return summary;
  }

  // ------------------------------------------------------------------------------ the steps

  private KubeCluster cluster() throws IOException {
    if (options.kubeconfig().isPresent()) {
      Path file = options.kubeconfig().get();
      summary.cluster = "the cluster of " + file;
      return KubeCluster.fromKubeconfig("cluster of " + file, file, null);
    }
    Path binary =
        Path.of(
            Optional.ofNullable(System.getenv("ELECTOR_APISERVER_BIN"))
                .orElse(System.getProperty("user.home") + "/.cache/elector/bin/elector-apiserver"));
    if (!Files.isExecutable(binary)) {
      throw new IOException(
          "the local control plane is not built ("
              + binary
              + "); run"
              + " testenv/build.sh first (./demo.sh does), or pass --kubeconfig");
    }
    progress.step("starting the local control plane (kube-apiserver and etcd) from " + binary);
    LocalControlPlane plane = LocalControlPlane.start(binary, Duration.ofMinutes(2));
    summary.cluster =
        "local control plane, kube-apiserver "
            + plane.version()
            + " at "
            + plane.server()
            + " (ready in "
            + plane.startMillis()
            + " ms)";
    return KubeCluster.fromKubeconfig(
        "local control plane " + plane.version(), plane.kubeconfig(), plane);
  }

  private void startControllers(KubeCluster cluster) throws Exception {
    AuthenticationV1TokenRequest token =
        new CoreV1Api(cluster.admin())
            .createNamespacedServiceAccountToken(
                CONTROLLER_SA,
                CONTROLLER_NAMESPACE,
                new AuthenticationV1TokenRequest()
                    .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
            .execute();
    Path kubeconfig = work.resolve("controller.kubeconfig");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml(token.getStatus().getToken()));
    for (int i = 0; i < 2; i++) {
      String name = "ippool-controller-" + i;
      List<String> command =
          new ArrayList<>(
              List.of(
                  "env",
                  "POD_NAMESPACE=" + CONTROLLER_NAMESPACE,
                  "POD_NAME=" + name,
                  java(),
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ControllerMain.class.getName(),
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "--health-addr",
                  "127.0.0.1:0",
                  "--identity",
                  name));
      command.addAll(options.timings());
      Path log = work.resolve(name + ".log");
      controllers.add(
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start());
      controllerLogs.add(new ProcessLog(name, log, this::onControllerEvent));
    }
    progress.step(
        "started 2 controller replicas as ServiceAccount "
            + CONTROLLER_NAMESPACE
            + "/"
            + CONTROLLER_SA
            + " (bound to the shipped ClusterRole)");
  }

  /**
   * The pool's network as Multus knows it: a NetworkAttachmentDefinition. Where the cluster has no
   * Multus (the local control plane), the stand-in CRD of deploy/multus is installed first.
   */
  private void ensureNetwork(KubeCluster cluster, String namespace) throws Exception {
    var crds =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
            "apiextensions.k8s.io", "v1", "customresourcedefinitions", cluster.admin());
    String crd = "network-attachment-definitions.k8s.cni.cncf.io";
    var nads =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
            "k8s.cni.cncf.io", "v1", "network-attachment-definitions", cluster.admin());
    if (crds.get(crd).getHttpStatusCode() == 404) {
      crds.create(
              io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                  Files.readString(options.manifests().resolve("multus").resolve(crd + ".yaml"))))
          .throwsApiException();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (nads.list(namespace).getHttpStatusCode() != 200) {
        if (System.nanoTime() > deadline) {
          throw new IOException("the stand-in NetworkAttachmentDefinition CRD is not served");
        }
        Thread.sleep(50);
      }
      progress.step(
          "no Multus here: installed the stand-in NetworkAttachmentDefinition CRD of"
              + " deploy/multus");
    }
    nads.create(
            io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                """
        apiVersion: k8s.cni.cncf.io/v1
        kind: NetworkAttachmentDefinition
        metadata: {namespace: %s, name: %s}
        spec: {config: '{"cniVersion":"0.3.1","type":"bridge","bridge":"br-48"}'}
        """
                    .formatted(namespace, POOL)))
        .throwsApiException();
    progress.step("created NetworkAttachmentDefinition " + namespace + "/" + POOL);
  }

  private void createPoolAndVm(KubeCluster cluster, String namespace) throws ApiException {
    NetworkApis.ipPools(cluster.admin())
        .create(
            new IPPool()
                .metadata(new V1ObjectMeta().namespace(namespace).name(POOL))
                .spec(
                    new IPPoolSpec()
                        .networkName(namespace + "/" + POOL)
                        .ipv4Config(
                            new IPv4Config()
                                .cidr("192.168.48.0/24")
                                .serverIP("192.168.48.2")
                                .router("192.168.48.1")
                                .pool(
                                    new Pool()
                                        .start("192.168.48.100")
                                        .end("192.168.48.200")
                                        .exclude(List.of("192.168.48.150")))
                                .dns(List.of("192.168.48.53"))
                                .domainName("vm.example.test")
                                .domainSearch(List.of("vm.example.test"))
                                .ntp(List.of("192.168.48.123"))
                                .leaseTime(300))))
        .throwsApiException();
    progress.step(
        "created IPPool "
            + namespace
            + "/"
            + POOL
            + ": 192.168.48.0/24, server .2,"
            + " router .1, range .100-.200");
    virtualMachines(cluster)
        .create(
            io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                """
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata: {namespace: %s, name: vm-1}
        spec:
          runStrategy: Always
          template:
            spec:
              domain:
                devices:
                  interfaces:
                  - {name: default, masquerade: {}}
                  - {name: nic-1, bridge: {}, macAddress: "%s"}
              networks:
              - {name: default, pod: {}}
              - {name: nic-1, multus: {networkName: %s}}
        """
                    .formatted(namespace, VM_MAC, POOL)))
        .throwsApiException();
    progress.step(
        "created VirtualMachine "
            + namespace
            + "/vm-1: NIC nic-1 ("
            + VM_MAC
            + ") on Multus network "
            + POOL
            + ", plus the pod network");
  }

  private static io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi virtualMachines(
      KubeCluster cluster) {
    return new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
        "kubevirt.io", "v1", "virtualmachines", cluster.admin());
  }

  /**
   * KubeVirt's VirtualMachines, from which the controller makes the VM configs. Where the cluster
   * has no KubeVirt (the local control plane), the trimmed stand-in CRD of deploy/kubevirt is
   * installed first; before the controllers start, which look for KubeVirt once, at start.
   */
  private void ensureKubeVirt(KubeCluster cluster) throws Exception {
    var crds =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
            "apiextensions.k8s.io", "v1", "customresourcedefinitions", cluster.admin());
    String crd = "virtualmachines.kubevirt.io";
    if (crds.get(crd).getHttpStatusCode() != 404) {
      return;
    }
    crds.create(
            io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                Files.readString(options.manifests().resolve("kubevirt").resolve(crd + ".yaml"))))
        .throwsApiException();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (virtualMachines(cluster).list().getHttpStatusCode() != 200) {
      if (System.nanoTime() > deadline) {
        throw new IOException("the stand-in VirtualMachine CRD is not served");
      }
      Thread.sleep(50);
    }
    progress.step(
        "no KubeVirt here: installed the trimmed stand-in VirtualMachine CRD of"
            + " deploy/kubevirt");
  }

  /** The VM config the controller made from the VirtualMachine, with its owner. */
  private void checkConfigFromVm(KubeCluster cluster, String namespace) throws ApiException {
    VirtualMachineNetworkConfig config =
        NetworkApis.vmNetworkConfigs(cluster.admin())
            .get(namespace, "vm-1")
            .throwsApiException()
            .getObject();
    var owners = config.getMetadata().getOwnerReferences();
    boolean owned =
        owners != null
            && owners.stream()
                .anyMatch(
                    o ->
                        "VirtualMachine".equals(o.getKind())
                            && "vm-1".equals(o.getName())
                            && Boolean.TRUE.equals(o.getController()));
    List<String> nics =
        config.getSpec().getNetworkConfigs().stream()
            .map(n -> n.getMacAddress() + " on " + n.getNetworkName())
            .toList();
    progress.step(
        "the controller made VirtualMachineNetworkConfig "
            + namespace
            + "/vm-1 from"
            + " the VirtualMachine: "
            + String.join(", ", nics)
            + (owned ? " (owned by the VM)" : ""));
    summary.check(
        "the controller made the VM config from the VirtualMachine: its Multus NIC"
            + " only, owned by the VM",
        owned && nics.equals(List.of(VM_MAC + " on " + namespace + "/" + POOL)));
  }

  private String awaitAllocation(KubeCluster cluster, String namespace, Duration limit)
      throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      var response = NetworkApis.vmNetworkConfigs(cluster.admin()).get(namespace, "vm-1");
      VirtualMachineNetworkConfig config =
          response.getHttpStatusCode() == 404
              ? null
              : response.throwsApiException().getObject(); // 404 until made from the VM
      if (config != null && config.getStatus() != null) {
        for (VirtualMachineNetworkConfig.NetworkConfigStatus nic :
            config.getStatus().getNetworkConfigs()) {
          if (VM_MAC.toString().equalsIgnoreCase(nic.getMacAddress())
              && nic.getAllocatedIPAddress() != null) {
            return nic.getAllocatedIPAddress();
          }
        }
      }
      Thread.sleep(100);
    }
    throw new IOException("the controller did not allocate an address to vm-1 within " + limit);
  }

  private V1Deployment awaitDeployment(KubeCluster cluster, String namespace, Duration limit)
      throws Exception {
    AppsV1Api apps = new AppsV1Api(cluster.admin());
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      for (V1Deployment d : apps.listNamespacedDeployment(namespace).execute().getItems()) {
        if (d.getSpec().getReplicas() != null && d.getSpec().getReplicas() > 0) {
          return d;
        }
      }
      Thread.sleep(100);
    }
    throw new IOException("the controller rendered no agent Deployment within " + limit);
  }

  /** The agent ServiceAccount may appear just after the Deployment; retry its token briefly. */
  private static List<LocalKubelet.Pod> syncWithRetry(LocalKubelet kubelet, V1Deployment deployment)
      throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        return kubelet.sync(deployment);
      } catch (ApiException e) {
        if (e.getCode() != 404 || attempt > 50) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private void firstLease(LocalKubelet kubelet, LocalKubelet.Pod leader, VmClient vm)
      throws Exception {
    if (vm != null) {
      vm.start();
      progress.step("VM vm-1 boots: udhcpc runs on its NIC " + VM_MAC);
      Map<String, String> bound = vm.await("bound", Duration.ofSeconds(30));
      summary.boundIp = bound.get("ip");
      summary.boundFrom =
          replier(kubelet, VM_MAC, "ACKED").orElse("?") + " (server " + bound.get("serverid") + ")";
      progress.step(
          "VM vm-1 is bound to "
              + bound.get("ip")
              + "/"
              + bound.get("mask")
              + ", router "
              + bound.get("router")
              + ", dns "
              + bound.get("dns")
              + ", lease "
              + bound.get("lease")
              + " s, from server "
              + bound.get("serverid"));
      summary.check(
          "the VM's DHCP client got exactly the address the controller allocated",
          summary.allocatedIp.equals(summary.boundIp));
      summary.check(
          "the leader holds the server address on its NIC",
          leader.host().map(h -> h.addresses().contains("192.168.48.2/24")).orElse(false));
    } else {
      summary.boundIp = leaseOf(leader, VM_MAC);
      summary.boundFrom = leader.name() + " (/leases)";
      progress.step(
          "the leading agent "
              + leader.name()
              + " would serve "
              + summary.boundIp
              + " to "
              + VM_MAC
              + " (from its /leases)");
      summary.check(
          "the leader's lease cache holds exactly the address the controller" + " allocated",
          summary.allocatedIp.equals(summary.boundIp));
    }
  }

  private void failover(
      KubeCluster cluster,
      String namespace,
      LocalKubelet kubelet,
      LocalKubelet.Pod leader,
      VmClient vm,
      V1Deployment deployment)
      throws Exception {
    Thread.sleep(options.quick() ? 500 : 2_000);
    progress.step(
        "killing the leading agent "
            + leader.name()
            + " without warning (SIGKILL;"
            + (leader.host().isPresent()
                ? " its network namespace vanishes, as with a crashed node)"
                : " as with a crashed node)"));
    long killed = System.nanoTime();
    killedAtMillis = System.currentTimeMillis();
    summary.killed = leader.name();
    kubelet.crash(leader);
    Thread.sleep(1_000);
    for (LocalKubelet.Pod pod : kubelet.sync(deployment)) {
      progress.step("the Deployment replaces the lost pod: " + pod.name() + " starts");
    }
    LocalKubelet.Pod next = awaitServingAgent(kubelet, leader, Duration.ofSeconds(60));
    EventLine leading = first(next, e -> e.kind().equals("leading") && e.monoNanos() > killed);
    EventLine serving = first(next, e -> e.kind().equals("serving") && e.monoNanos() > killed);
    summary.failoverMillis.put(
        "kill -> new leader elected", (leading.monoNanos() - killed) / 1_000_000);
    summary.failoverMillis.put(
        "kill -> new leader serving", (serving.monoNanos() - killed) / 1_000_000);
    if (vm != null) {
      vm.forget("renew");
      vm.renewNow();
      Map<String, String> renewed = vm.await("renew", Duration.ofSeconds(30));
      EventLine answer =
          awaitFirst(
              next,
              e -> e.kind().equals("reply") && e.monoNanos() > killed,
              Duration.ofSeconds(10));
      summary.renewedIp = renewed.get("ip");
      summary.renewedFrom = next.name() + " (server " + renewed.get("serverid") + ")";
      summary.failoverMillis.put(
          "kill -> first answer of the new leader", (answer.monoNanos() - killed) / 1_000_000);
      progress.step("VM vm-1 renewed " + renewed.get("ip") + " from the new leader " + next.name());
      summary.check(
          "the VM kept its address after the failover",
          summary.allocatedIp.equals(summary.renewedIp));
      summary.check(
          "the new leader answered the VM's renewal",
          replier(kubelet, VM_MAC, "ACKED", killed).map(next.name()::equals).orElse(false));
      summary.check(
          "the server address moved to the new leader's NIC",
          next.host().map(h -> h.addresses().contains("192.168.48.2/24")).orElse(false));
    } else {
      summary.renewedIp = leaseOf(next, VM_MAC);
      summary.renewedFrom = next.name() + " (/leases)";
      summary.check(
          "the new leader's lease cache holds the VM's address",
          summary.allocatedIp.equals(summary.renewedIp));
    }
    summary.check(
        "a failover time was measured",
        summary.failoverMillis.get("kill -> new leader serving") > 0);
  }

  private void conclude(LocalKubelet kubelet, Optional<NetLab> lab) throws Exception {
    Thread.sleep(options.quick() ? 500 : 2_000);
    long startMillis = progress.startMillis();
    for (LocalKubelet.Pod pod : kubelet.pods()) {
      addTerms(pod.log().events(), "agent", pod.name(), startMillis, pod.alive() ? null : "killed");
      for (EventLine e : pod.log().events()) {
        if (e.kind().equals("reply") && List.of("OFFERED", "ACKED").contains(e.get("kind"))) {
          summary.served(e.get("ip"), e.get("mac"), e.get("kind"));
        }
      }
    }
    for (ProcessLog log : controllerLogs) {
      addTerms(log.events(), "controller", log.source(), startMillis, null);
    }
    summary.check(
        "no address was handed to two MACs",
        summary.servedTo.values().stream().allMatch(macs -> macs.size() == 1));
    summary.check("no two agents led at once", !summary.overlapping("agent"));
    summary.check("no two controllers led at once", !summary.overlapping("controller"));
    if (lab.isEmpty()) {
      summary.notes.add("no DHCP packets were exchanged on this machine; see the DHCP line");
    }
  }

  /**
   * What an operator would look at, read while everything still runs: the leading controller's
   * /metrics (client-go's leader gauge and the pool's use) and the Kubernetes Events on the Leases,
   * the IPPool and the VM config.
   */
  private void observability(KubeCluster cluster, String namespace) throws Exception {
    boolean gauge = false;
    for (Map.Entry<String, String> c : controllerHealth.entrySet()) {
      String metrics =
          http.send(
                  HttpRequest.newBuilder(URI.create("http://" + c.getValue() + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
              .body();
      for (String line : metrics.lines().toList()) {
        if (line.startsWith("leader_election_master_status{") && line.endsWith(" 1.0")) {
          gauge = true;
          summary.whereToLook.add(
              "curl http://"
                  + c.getValue()
                  + "/metrics ("
                  + c.getKey()
                  + "): "
                  + line.replaceAll("(identity|lock)=\"[^\"]*\",?", ""));
          metrics
              .lines()
              .filter(l -> l.startsWith("vmdhcpcontroller_ippool_used{") && l.contains(POOL))
              .forEach(l -> summary.whereToLook.add("  " + l));
        }
      }
    }
    summary.check("the leading controller's /metrics has client-go's leader gauge at 1", gauge);
    CoreV1Api core = new CoreV1Api(cluster.admin());
    List<String> seen = new ArrayList<>();
    for (String ns : List.of(CONTROLLER_NAMESPACE, namespace)) {
      for (var event : core.listNamespacedEvent(ns).execute().getItems()) {
        if (event.getReportingComponent() != null
            && List.of("ippool-controller", "vm-dhcp-agent")
                .contains(event.getReportingComponent())) {
          seen.add(event.getReason());
          summary.whereToLook.add(
              "kubectl describe "
                  + event.getInvolvedObject().getKind().toLowerCase(Locale.ROOT)
                  + " -n "
                  + ns
                  + " "
                  + event.getInvolvedObject().getName()
                  + ": "
                  + event.getType()
                  + " "
                  + event.getReason()
                  + " "
                  + event.getMessage());
        }
      }
    }
    summary.check(
        "Kubernetes Events show who leads and the VM's allocation",
        seen.contains("LeaderElection") && seen.contains("Allocated"));
  }

  private void stopControllers(KubeCluster cluster, String namespace) {
    if (options.kubeconfig().isPresent() && namespace != null) {
      try {
        // The controllers' finalizers clean up the agent Deployment; then the namespace goes.
        NetworkApis.vmNetworkConfigs(cluster.admin()).delete(namespace, "vm-1");
        NetworkApis.ipPools(cluster.admin()).delete(namespace, POOL);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline
            && NetworkApis.ipPools(cluster.admin()).get(namespace, POOL).isSuccess()) {
          Thread.sleep(200);
        }
        new CoreV1Api(cluster.admin()).deleteNamespace(namespace).execute();
      } catch (Exception e) {
        progress.step("could not clean up namespace " + namespace + ": " + e);
      }
    }
    controllers.forEach(Process::destroy);
    for (Process p : controllers) {
      try {
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    controllerLogs.forEach(ProcessLog::close);
  }

  // ------------------------------------------------------------------------------ timeline

  private void onAgentEvent(EventLine e) {
    String text =
        switch (e.kind()) {
          case "synced" -> "lease cache synced (" + e.get("leases") + " leases)";
          case "leading" -> "LEADS the agents of " + POOL + " (token " + e.get("token") + ")";
          case "address-added" ->
              "put the server address " + e.get("address") + " on " + e.get("nic");
          case "serving" -> "serves DHCP as " + e.get("serverIp");
          case "reply" ->
              e.get("kind")
                  + " "
                  + e.get("ip")
                  + " to "
                  + e.get("mac")
                  + ("-".equals(e.get("state")) ? "" : " (" + e.get("state") + ")");
          case "stopped" -> "stops leading (" + e.get("reason") + ")";
          case "address-removed" ->
              "removed the server address " + e.get("address") + " from " + e.get("nic");
          default -> null;
        };
    if (text != null) {
      progress.line(e.epochMillis(), e.source(), text);
    }
  }

  private void onControllerEvent(EventLine e) {
    if (e.kind().equals("health")) {
      controllerHealth.put(e.source(), e.get("addr"));
    }
    String text =
        switch (e.kind()) {
          case "leading" -> "LEADS the controllers (token " + e.get("token") + ")";
          case "stopped_leading" -> "stops leading (" + e.get("reason") + ")";
          case "deployment" -> e.get("action") + " agent Deployment " + e.get("deployment");
          case "allocated" -> "allocated " + e.get("ip") + " to " + e.get("mac");
          default -> null;
        };
    if (text != null) {
      progress.line(e.epochMillis(), e.source(), text);
    }
  }

  private void addTerms(
      List<EventLine> events, String role, String who, long startMillis, String fate) {
    EventLine open = null;
    for (EventLine e : events) {
      if (e.kind().equals("leading")) {
        open = e;
      } else if ((e.kind().equals("stopped") || e.kind().equals("stopped_leading"))
          && open != null) {
        summary.terms.add(
            new DemoSummary.Term(
                who,
                role,
                Long.parseLong(open.get("token")),
                (open.epochMillis() - startMillis) / 1000.0,
                (e.epochMillis() - startMillis) / 1000.0,
                e.get("reason")));
        open = null;
      }
    }
    if (open != null) {
      double end = fate == null ? -1 : (killedAtMillis - startMillis) / 1000.0;
      summary.terms.add(
          new DemoSummary.Term(
              who,
              role,
              Long.parseLong(open.get("token")),
              (open.epochMillis() - startMillis) / 1000.0,
              end,
              fate == null ? "leading at the end" : fate));
    }
  }

  // ------------------------------------------------------------------------------ helpers

  private LocalKubelet.Pod awaitServingAgent(
      LocalKubelet kubelet, LocalKubelet.Pod not, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      for (LocalKubelet.Pod pod : kubelet.pods()) {
        if (pod != not && pod.alive() && servingNow(pod)) {
          return pod;
        }
      }
      Thread.sleep(20);
    }
    throw new IOException("no agent serves within " + limit);
  }

  private static boolean servingNow(LocalKubelet.Pod pod) {
    List<EventLine> events = pod.log().events();
    for (int i = events.size() - 1; i >= 0; i--) {
      if (events.get(i).kind().equals("serving")) {
        return true;
      }
      if (events.get(i).kind().equals("stopped")) {
        return false;
      }
    }
    return false;
  }

  private static Optional<String> replier(LocalKubelet kubelet, MacAddress mac, String kind) {
    return replier(kubelet, mac, kind, Long.MIN_VALUE);
  }

  private static Optional<String> replier(
      LocalKubelet kubelet, MacAddress mac, String kind, long after) {
    for (LocalKubelet.Pod pod : kubelet.pods()) {
      for (EventLine e : pod.log().events()) {
        if (e.kind().equals("reply")
            && e.get("kind").equals(kind)
            && e.get("mac").equalsIgnoreCase(mac.toString())
            && e.monoNanos() > after) {
          return Optional.of(pod.name());
        }
      }
    }
    return Optional.empty();
  }

  private static EventLine first(LocalKubelet.Pod pod, Predicate<EventLine> match)
      throws IOException {
    return pod.log().events().stream()
        .filter(match)
        .findFirst()
        .orElseThrow(() -> new IOException(pod.name() + " printed no such event"));
  }

  private static EventLine awaitFirst(
      LocalKubelet.Pod pod, Predicate<EventLine> match, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<EventLine> found = pod.log().events().stream().filter(match).findFirst();
      if (found.isPresent()) {
        return found.get();
      }
      Thread.sleep(20);
    }
    throw new IOException(pod.name() + ": no such event within " + limit);
  }

  private static void awaitEvent(
      List<ProcessLog> logs, Predicate<EventLine> match, Duration limit, String what)
      throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      for (ProcessLog log : logs) {
        if (log.events().stream().anyMatch(match)) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new IOException(
        "no " + what + " within " + limit + "; see the logs in " + logs.get(0).file().getParent());
  }

  /** The VM's address in an agent's /leases (the agent must run without namespaces). */
  private String leaseOf(LocalKubelet.Pod pod, MacAddress mac) throws Exception {
    EventLine started = awaitFirst(pod, e -> e.kind().equals("started"), Duration.ofSeconds(10));
    String body =
        http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + started.get("health") + "/leases"))
                    .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
            .body();
    JsonObject dump = JsonParser.parseString(body).getAsJsonObject();
    JsonElement leases = dump.get("leases");
    JsonElement ip =
        leases == null || !leases.isJsonObject()
            ? null
            : leases.getAsJsonObject().get(mac.toString());
    return ip == null || ip.isJsonNull() ? "none" : ip.getAsString();
  }

  private static String java() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }
}
