package dev.elector.demo;

import static dev.elector.demo.Demo.POOL;
import static dev.elector.demo.Demo.VM_MAC;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.Pool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The objects the demo creates: the stand-in CRDs where the cluster has no KubeVirt or Multus, the
 * pool's NetworkAttachmentDefinition, the IPPool and the VirtualMachine; then it waits for the VM
 * config the controller makes and the address it allocates.
 */
final class ClusterObjectsStep {
  private final DemoRun run;
  private final ApiClient admin;

  ClusterObjectsStep(DemoRun run) {
    this.run = run;
    this.admin = run.cluster.admin();
  }

  /**
   * KubeVirt's VirtualMachines, from which the controller makes the VM configs. Where the cluster
   * has no KubeVirt (the local control plane), the trimmed stand-in CRD of deploy/kubevirt is
   * installed first; before the controllers start, which look for KubeVirt once, at start.
   */
  void ensureKubeVirt() throws Exception {
    if (installStandIn("virtualmachines.kubevirt.io", "kubevirt", () -> virtualMachines().list())) {
      run.progress.step(
          "no KubeVirt here: installed the trimmed stand-in VirtualMachine CRD of"
              + " deploy/kubevirt");
    }
  }

  /** The network, the pool and the VM; returns once the controller allocated the VM's address. */
  void createNetworkPoolAndVm() throws Exception {
    ensureNetwork();
    createPoolAndVm();
    run.summary.allocatedIp = awaitAllocation(Duration.ofSeconds(60));
    checkConfigFromVm();
    run.progress.step(
        "the controller allocated " + run.summary.allocatedIp + " to vm-1 (" + VM_MAC + ")");
  }

  /**
   * Installs the CRD {@code crd} from {@code deploy/<dir>} unless the cluster has it, and waits
   * until its resource is served.
   *
   * @return whether it was installed
   */
  private boolean installStandIn(String crd, String dir, Supplier<KubernetesApiResponse<?>> probe)
      throws Exception {
    var crds =
        new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", admin);
    if (crds.get(crd).getHttpStatusCode() != 404) {
      return false;
    }
    crds.create(
            Dynamics.newFromYaml(
                Files.readString(run.options.manifests().resolve(dir).resolve(crd + ".yaml"))))
        .throwsApiException();
    Waits.until(
        "the stand-in CRD " + crd + " is served",
        Duration.ofSeconds(30),
        () ->
            probe.get().getHttpStatusCode() == 200 ? Optional.of(true) : Optional.<Boolean>empty());
    return true;
  }

  /**
   * The pool's network as Multus knows it: a NetworkAttachmentDefinition. Where the cluster has no
   * Multus (the local control plane), the stand-in CRD of deploy/multus is installed first.
   */
  private void ensureNetwork() throws Exception {
    var nads =
        new DynamicKubernetesApi("k8s.cni.cncf.io", "v1", "network-attachment-definitions", admin);
    if (installStandIn(
        "network-attachment-definitions.k8s.cni.cncf.io",
        "multus",
        () -> nads.list(run.namespace))) {
      run.progress.step(
          "no Multus here: installed the stand-in NetworkAttachmentDefinition CRD of"
              + " deploy/multus");
    }
    nads.create(
            Dynamics.newFromYaml(
                """
        apiVersion: k8s.cni.cncf.io/v1
        kind: NetworkAttachmentDefinition
        metadata: {namespace: %s, name: %s}
        spec: {config: '{"cniVersion":"0.3.1","type":"bridge","bridge":"br-48"}'}
        """
                    .formatted(run.namespace, POOL)))
        .throwsApiException();
    run.progress.step("created NetworkAttachmentDefinition " + run.namespace + "/" + POOL);
  }

  private void createPoolAndVm() throws Exception {
    String namespace = run.namespace;
    NetworkApis.ipPools(admin)
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
    run.progress.step(
        "created IPPool "
            + namespace
            + "/"
            + POOL
            + ": 192.168.48.0/24, server .2,"
            + " router .1, range .100-.200");
    virtualMachines()
        .create(
            Dynamics.newFromYaml(
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
    run.progress.step(
        "created VirtualMachine "
            + namespace
            + "/vm-1: NIC nic-1 ("
            + VM_MAC
            + ") on Multus network "
            + POOL
            + ", plus the pod network");
  }

  private DynamicKubernetesApi virtualMachines() {
    return new DynamicKubernetesApi("kubevirt.io", "v1", "virtualmachines", admin);
  }

  /** The VM config the controller made from the VirtualMachine, with its owner. */
  private void checkConfigFromVm() throws Exception {
    VirtualMachineNetworkConfig config =
        NetworkApis.vmNetworkConfigs(admin)
            .get(run.namespace, "vm-1")
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
    run.progress.step(
        "the controller made VirtualMachineNetworkConfig "
            + run.namespace
            + "/vm-1 from"
            + " the VirtualMachine: "
            + String.join(", ", nics)
            + (owned ? " (owned by the VM)" : ""));
    run.summary.check(
        "the controller made the VM config from the VirtualMachine: its Multus NIC"
            + " only, owned by the VM",
        owned && nics.equals(List.of(VM_MAC + " on " + run.namespace + "/" + POOL)));
  }

  private String awaitAllocation(Duration limit) throws Exception {
    return Waits.until(
        "the controller allocating an address to vm-1",
        limit,
        () -> {
          var response = NetworkApis.vmNetworkConfigs(admin).get(run.namespace, "vm-1");
          if (response.getHttpStatusCode() == 404) {
            return Optional.empty(); // until the controller makes it from the VM
          }
          VirtualMachineNetworkConfig config = response.throwsApiException().getObject();
          if (config.getStatus() == null) {
            return Optional.empty();
          }
          return config.getStatus().getNetworkConfigs().stream()
              .filter(
                  nic ->
                      VM_MAC.toString().equalsIgnoreCase(nic.getMacAddress())
                          && nic.getAllocatedIPAddress() != null)
              .map(VirtualMachineNetworkConfig.NetworkConfigStatus::getAllocatedIPAddress)
              .findFirst();
        });
  }
}
