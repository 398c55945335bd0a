package dev.elector.demo;

import dev.elector.dhcp.lab.NetLab;
import dev.elector.ippool.NetworkCrds;
import dev.elector.testkit.internal.LocalControlPlane;
import dev.elector.testkit.kube.KubeCluster;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The first step: an API server (the local control plane, or the cluster of {@code --kubeconfig}),
 * the CRDs, the shipped RBAC, the demo's namespace, and whether network namespaces can be used.
 */
final class ControlPlaneStep {
  private final DemoRun run;

  ControlPlaneStep(DemoRun run) {
    this.run = run;
  }

  /** Starts or connects to the API server. */
  KubeCluster start() throws IOException {
    if (run.options.kubeconfig().isPresent()) {
      Path file = run.options.kubeconfig().get();
      run.summary.cluster = "the cluster of " + file;
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
    run.progress.step("starting the local control plane (kube-apiserver and etcd) from " + binary);
    LocalControlPlane plane = LocalControlPlane.start(binary, Duration.ofMinutes(2));
    run.summary.cluster =
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

  /** Installs the CRDs and the RBAC, makes the demo's namespace and decides on the network lab. */
  void prepare() throws Exception {
    KubeCluster cluster = run.cluster;
    run.progress.step("API server ready: " + cluster.description() + " at " + cluster.server());
    NetworkCrds.install(cluster.admin(), Duration.ofSeconds(60));
    run.progress.step(
        "CRDs installed: ippools and virtualmachinenetworkconfigs"
            + " (network.harvesterhci.io/v1alpha1)");
    List<String> applied =
        Manifests.apply(cluster.admin(), run.options.manifests().resolve("controller/rbac.yaml"));
    run.progress.step(
        "RBAC applied from deploy/controller/rbac.yaml: "
            + applied.size()
            + " objects (the controller's; it writes each pool namespace's agent Role)");
    run.namespace =
        "elector-demo-"
            + Long.toString(
                ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36, 36L * 36 * 36 * 36 * 36),
                36);
    Manifests.ensureNamespace(new CoreV1Api(cluster.admin()), run.namespace);

    Optional<String> noLab =
        run.options.kubeconfig().isPresent()
            ? Optional.of("--kubeconfig points at a cluster the network namespaces cannot reach")
            : run.options.noNetns()
                ? Optional.of("--no-netns was given")
                : NetLab.unavailableReason();
    if (noLab.isEmpty()) {
      run.lab = Optional.of(NetLab.create());
      run.summary.dhcp =
          "real client: Debian busybox udhcpc in a network namespace on the pool's"
              + " L2 segment; agents in namespaces of their own";
    } else {
      run.summary.dhcp =
          "no real DHCP exchange ("
              + noLab.get()
              + "); agents run in --dry-run"
              + " mode and the VM's lease is read from the leading agent's /leases endpoint";
      run.progress.step("network namespaces are not available here: " + noLab.get());
      run.progress.step(
          "instead: agents run without touching interfaces, and the demo reads the"
              + " VM's lease from the leader's /leases instead of running a DHCP client");
    }
  }
}
