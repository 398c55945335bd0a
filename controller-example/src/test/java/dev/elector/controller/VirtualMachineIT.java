package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.examples.ProcessEvent;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.Pool;
import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * KubeVirt VirtualMachines drive allocation: the controller keeps each VM's
 * VirtualMachineNetworkConfig from the VM's Multus NICs. The VirtualMachine CRD is the trimmed
 * stand-in of deploy/kubevirt (only the fields the controller reads are in its schema).
 */
@KubeTest
class VirtualMachineIT {
  static final Path VM_CRD =
      Path.of("..", "deploy", "kubevirt", "virtualmachines.kubevirt.io.yaml");
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static ControllerHarness harness;
  private static GenericKubernetesApi<VirtualMachine, VirtualMachineList> vms;
  private static String ns;

  @BeforeAll
  static void start(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    installVmCrd(cluster.admin());
    harness = ControllerHarness.create(cluster, "vm-it");
    ns = namespace.name();
    vms =
        new GenericKubernetesApi<>(
            VirtualMachine.class,
            VirtualMachineList.class,
            VirtualMachine.GROUP,
            VirtualMachine.VERSION,
            VirtualMachine.PLURAL,
            harness.admin);
    harness.start("replica-a", 2);
    harness.awaitLeader(WAIT);
    registered(ControllerHarness.pool(ns, "net-a", 61));
    registered(ControllerHarness.pool(ns, "net-b", 62));
    IPPool one = ControllerHarness.pool(ns, "net-one", 63);
    one.getSpec().getIpv4Config().pool(new Pool().start("10.63.0.10").end("10.63.0.10"));
    registered(one);
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  /** Installs the stand-in CRD and waits until the API server serves it. */
  static void installVmCrd(ApiClient admin) throws Exception {
    DynamicKubernetesApi crds =
        new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", admin);
    KubernetesApiResponse<DynamicKubernetesObject> created =
        crds.create(Dynamics.newFromYaml(Files.readString(VM_CRD)));
    if (created.getHttpStatusCode() != 409) {
      created.throwsApiException();
    }
    CustomObjectsApi custom = new CustomObjectsApi(admin);
    Await.until(
        "kubevirt.io/v1 virtualmachines is served",
        WAIT,
        () -> {
          try {
            return custom
                .getAPIResources(VirtualMachine.GROUP, VirtualMachine.VERSION)
                .execute()
                .getResources()
                .stream()
                .anyMatch(r -> VirtualMachine.PLURAL.equals(r.getName()));
          } catch (io.kubernetes.client.openapi.ApiException e) {
            return false;
          }
        });
  }

  private static void registered(IPPool pool) throws Exception {
    String name = pool.getMetadata().getName();
    harness.create(pool);
    Await.until(
        name + " registers",
        WAIT,
        () ->
            harness.read(ns, name).getStatus() != null
                && harness
                    .read(ns, name)
                    .getStatus()
                    .condition(PoolCondition.REGISTERED)
                    .map(PoolCondition::isTrue)
                    .orElse(false));
  }

  private static VirtualMachine vm(String name) {
    return new VirtualMachine().metadata(new V1ObjectMeta().namespace(ns).name(name));
  }

  private static VirtualMachine create(VirtualMachine vm) throws Exception {
    return vms.create(vm).throwsApiException().getObject();
  }

  /** Re-reads the VM, changes it and updates it (the controller never writes VMs). */
  private static void edit(String name, Consumer<VirtualMachine> change) throws Exception {
    VirtualMachine vm = vms.get(ns, name).throwsApiException().getObject();
    change.accept(vm);
    vms.update(vm).throwsApiException();
  }

  /** Waits until the config lists exactly {@code nics} ("mac@pool") and all are Allocated. */
  private static VirtualMachineNetworkConfig awaitConfig(String name, String... nics) {
    List<String> wanted = List.of(nics);
    Await.until(
        name + "'s config has " + wanted + ", all allocated",
        WAIT,
        () -> {
          VirtualMachineNetworkConfig c = harness.readConfig(ns, name);
          return c.getSpec().getNetworkConfigs().stream()
                  .map(n -> n.getMacAddress() + "@" + n.getNetworkName().substring(ns.length() + 1))
                  .toList()
                  .equals(wanted)
              && c.getStatus() != null
              && c.getStatus().getNetworkConfigs().stream()
                  .map(n -> n.getMacAddress() + "@" + n.getNetworkName().substring(ns.length() + 1))
                  .toList()
                  .equals(wanted)
              && c.getStatus().getNetworkConfigs().stream()
                  .allMatch(s -> NetworkConfigStatus.STATE_ALLOCATED.equals(s.getState()))
              && c.getStatus()
                  .condition(VmReconciler.IN_SYNCED)
                  .map(PoolCondition::isTrue)
                  .orElse(false);
        });
    try {
      return harness.readConfig(ns, name);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The pool's allocations to MACs (markers such as RESERVED left out). */
  private static Map<String, String> table(String pool) throws Exception {
    Map<String, String> macs =
        new java.util.TreeMap<>(harness.read(ns, pool).getStatus().getIpv4().getAllocated());
    macs.values().removeIf(dev.elector.ippool.IPv4Status::isMarker);
    return macs;
  }

  private static String ip(VirtualMachineNetworkConfig c, int i) {
    return c.getStatus().getNetworkConfigs().get(i).getAllocatedIPAddress();
  }

  private static void awaitEvent(String object, String type, String reason, String text) {
    CoreV1Api core = new CoreV1Api(harness.admin);
    Await.until(
        type + " event " + reason + " on " + object + ": " + text,
        WAIT,
        () ->
            core
                .listNamespacedEvent(ns)
                .fieldSelector(
                    "involvedObject.name=" + object + ",involvedObject.kind=VirtualMachine")
                .execute()
                .getItems()
                .stream()
                .anyMatch(
                    e ->
                        type.equals(e.getType())
                            && reason.equals(e.getReason())
                            && e.getMessage() != null
                            && e.getMessage().contains(text)));
  }

  @Test
  void aVmGetsAConfigOfItsMultusNicsWithAMacOwnedByIt() throws Exception {
    VirtualMachine created =
        create(
            vm("vm-create")
                .nic("default", "52:54:00:61:00:09", null) // pod network: skipped
                .nic("nic-1", "52:54:00:61:00:01", "net-a") // same namespace, short name
                .nic("nic-2", null, ns + "/net-a") // no MAC yet: skipped
                .nic("nic-3", "52:54:00:61:00:03", ns + "/net-b"));
    VirtualMachineNetworkConfig c =
        awaitConfig("vm-create", "52:54:00:61:00:01@net-a", "52:54:00:61:00:03@net-b");
    String first = ip(c, 0);
    assertTrue(first.startsWith("10.61.0.") && ip(c, 1).startsWith("10.62.0."), c.toString());
    assertEquals("52:54:00:61:00:01", table("net-a").get(first));
    V1OwnerReference owner = c.getMetadata().getOwnerReferences().get(0);
    assertEquals(
        List.of(
            "kubevirt.io/v1", "VirtualMachine", "vm-create", created.getMetadata().getUid(), true),
        List.of(
            owner.getApiVersion(),
            owner.getKind(),
            owner.getName(),
            owner.getUid(),
            owner.getController()));
    assertEquals("vm-create", c.getSpec().getVmName());
    assertEquals("vm-create", c.getMetadata().getLabels().get(VmReconciler.VM_LABEL));
    awaitEvent(
        "vm-create", "Normal", "NetworkConfigCreated", "52:54:00:61:00:01 on " + ns + "/net-a");

    // The MAC KubeVirt assigns later, recorded in the annotation, adds the NIC.
    edit(
        "vm-create",
        vm ->
            vm.getMetadata()
                .putAnnotationsItem(
                    VmNetworks.MAC_ANNOTATION,
                    "{\"default\":\"52:54:00:61:00:09\",\"nic-2\":\"52:54:00:61:00:02\"}"));
    c =
        awaitConfig(
            "vm-create",
            "52:54:00:61:00:01@net-a",
            "52:54:00:61:00:02@net-a",
            "52:54:00:61:00:03@net-b");
    assertEquals(first, ip(c, 0), "the NICs already there keep their addresses");
    assertEquals("52:54:00:61:00:02", table("net-a").get(ip(c, 1)));
  }

  @Test
  void aVmWithoutAMultusNicWithAMacGetsNoConfig() throws Exception {
    create(vm("vm-none").nic("default", "52:54:00:61:01:01", null).nic("nic-1", null, "net-a"));
    create(vm("vm-later").nic("nic-1", "52:54:00:61:01:02", "net-a"));
    awaitConfig("vm-later", "52:54:00:61:01:02@net-a"); // the VM queued after it was handled
    assertTrue(harness.absent(() -> harness.readConfig(ns, "vm-none")));
  }

  @Test
  void aNicAddedIsAllocatedAndANicRemovedIsReleased() throws Exception {
    create(vm("vm-nics").nic("nic-1", "52:54:00:61:02:01", "net-a"));
    awaitConfig("vm-nics", "52:54:00:61:02:01@net-a");
    edit("vm-nics", vm -> vm.nic("nic-2", "52:54:00:61:02:02", "net-a"));
    VirtualMachineNetworkConfig c =
        awaitConfig("vm-nics", "52:54:00:61:02:01@net-a", "52:54:00:61:02:02@net-a");
    String second = ip(c, 1);
    assertEquals("52:54:00:61:02:02", table("net-a").get(second));

    edit(
        "vm-nics",
        vm -> {
          vm.interfaces().remove(1);
          vm.networks().remove(1);
        });
    awaitConfig("vm-nics", "52:54:00:61:02:01@net-a");
    Await.until(
        "the removed NIC's address is released",
        WAIT,
        () -> !table("net-a").containsValue("52:54:00:61:02:02"));
    assertEquals(null, table("net-a").get(second));
  }

  @Test
  void aChangedMacIsMarkedOutOfSyncAndReleasedBeforeTheNewMacIsAllocated() throws Exception {
    // net-one has a single address: the new MAC can only get it once the old one released it.
    create(vm("vm-mac").nic("nic-1", "52:54:00:61:03:01", "net-one"));
    assertEquals("10.63.0.10", ip(awaitConfig("vm-mac", "52:54:00:61:03:01@net-one"), 0));
    int before = harness.events("replica-a").size();
    edit("vm-mac", vm -> vm.interfaces().get(0).macAddress("52:54:00:61:03:02"));
    VirtualMachineNetworkConfig c = awaitConfig("vm-mac", "52:54:00:61:03:02@net-one");
    assertEquals("10.63.0.10", ip(c, 0));
    assertEquals(Map.of("10.63.0.10", "52:54:00:61:03:02"), table("net-one"));
    List<ProcessEvent> after =
        harness.events("replica-a").subList(before, harness.events("replica-a").size());
    int outOfSync =
        indexOf(
            after,
            "CONDITION",
            "vmconfig=" + ns + "/vm-mac",
            "type=InSynced",
            "status=False",
            "reason=NetworkConfigChanged");
    int released = indexOf(after, "RELEASED", "mac=52:54:00:61:03:01");
    int allocated = indexOf(after, "ALLOCATED", "mac=52:54:00:61:03:02");
    assertTrue(0 <= outOfSync && outOfSync < released && released < allocated, after.toString());
    assertTrue(indexOf(after, "VM_CONFIG", "vm=" + ns + "/vm-mac", "action=updated") >= 0);
  }

  @Test
  void aChangedNetworkMovesTheNicToTheOtherPool() throws Exception {
    create(vm("vm-net").nic("nic-1", "52:54:00:61:04:01", "net-a"));
    String old = ip(awaitConfig("vm-net", "52:54:00:61:04:01@net-a"), 0);
    edit("vm-net", vm -> vm.networks().get(0).multusNetworkName(ns + "/net-b"));
    VirtualMachineNetworkConfig c = awaitConfig("vm-net", "52:54:00:61:04:01@net-b");
    assertTrue(ip(c, 0).startsWith("10.62.0."), ip(c, 0));
    assertEquals("52:54:00:61:04:01", table("net-b").get(ip(c, 0)));
    Await.until(
        "net-a released " + old, WAIT, () -> !table("net-a").containsValue("52:54:00:61:04:01"));
  }

  @Test
  void aDeletedVmTakesItsConfigAndAddressesWithIt() throws Exception {
    create(vm("vm-gone").nic("nic-1", "52:54:00:61:05:01", "net-a"));
    awaitConfig("vm-gone", "52:54:00:61:05:01@net-a");
    vms.delete(ns, "vm-gone").throwsApiException();
    Await.until(
        "the config is gone", WAIT, () -> harness.absent(() -> harness.readConfig(ns, "vm-gone")));
    assertFalse(
        table("net-a").containsValue("52:54:00:61:05:01"),
        "its finalizer released the address before it went");
  }

  @Test
  void aVmWithMoreNicsThanAConfigHoldsGetsItsFirstFourServedAndSaysWhichAreNot() throws Exception {
    VirtualMachine vm = vm("vm-many");
    for (int i = 1; i <= 6; i++) {
      vm.nic("nic-" + i, "52:54:00:61:07:0" + i, "net-a");
    }
    create(vm);
    Await.until(
        "the first four NICs are allocated and InSynced says why the rest are not",
        WAIT,
        () -> {
          VirtualMachineNetworkConfig c = harness.readConfig(ns, "vm-many");
          return c.getSpec().getNetworkConfigs().stream()
                  .map(NetworkConfig::getMacAddress)
                  .toList()
                  .equals(
                      List.of(
                          "52:54:00:61:07:01",
                          "52:54:00:61:07:02",
                          "52:54:00:61:07:03",
                          "52:54:00:61:07:04"))
              && c.getStatus() != null
              && c.getStatus().getNetworkConfigs().size() == 4
              && c.getStatus().getNetworkConfigs().stream()
                  .allMatch(n -> NetworkConfigStatus.STATE_ALLOCATED.equals(n.getState()))
              && c.getStatus()
                  .condition(VmReconciler.IN_SYNCED)
                  .map(
                      cond ->
                          "False".equals(cond.getStatus())
                              && VmReconciler.TOO_MANY_NICS.equals(cond.getReason()))
                  .orElse(false);
        });
    awaitEvent(
        "vm-many",
        "Warning",
        VmReconciler.TOO_MANY_NICS,
        "52:54:00:61:07:05 on "
            + ns
            + "/net-a, 52:54:00:61:07:06 on "
            + ns
            + "/net-a get no address");

    // down to four: nothing is left out, and the config is in sync again
    edit(
        "vm-many",
        v -> {
          v.interfaces().subList(4, 6).clear();
          v.networks().subList(4, 6).clear();
        });
    awaitConfig(
        "vm-many",
        "52:54:00:61:07:01@net-a",
        "52:54:00:61:07:02@net-a",
        "52:54:00:61:07:03@net-a",
        "52:54:00:61:07:04@net-a");
  }

  @Test
  void aMalformedAnnotationKeepsTheConfigAndSaysWhy() throws Exception {
    create(vm("vm-bad").nic("nic-1", null, "net-a").nic("nic-2", "52:54:00:61:06:02", "net-a"));
    edit(
        "vm-bad",
        vm ->
            vm.getMetadata()
                .putAnnotationsItem(
                    VmNetworks.MAC_ANNOTATION, "{\"nic-1\":\"52:54:00:61:06:01\"}"));
    VirtualMachineNetworkConfig good =
        awaitConfig("vm-bad", "52:54:00:61:06:01@net-a", "52:54:00:61:06:02@net-a");

    edit(
        "vm-bad",
        vm ->
            vm.getMetadata()
                .putAnnotationsItem(VmNetworks.MAC_ANNOTATION, "{\"nic-1\": 52:54:00:61:06:01"));
    Await.until(
        "InSynced turns False with the reason",
        WAIT,
        () ->
            harness
                .readConfig(ns, "vm-bad")
                .getStatus()
                .condition(VmReconciler.IN_SYNCED)
                .map(
                    cond ->
                        "False".equals(cond.getStatus())
                            && "InvalidMacAddressAnnotation".equals(cond.getReason()))
                .orElse(false));
    awaitEvent(
        "vm-bad",
        "Warning",
        "InvalidMacAddressAnnotation",
        VmNetworks.MAC_ANNOTATION + " of VirtualMachine " + ns + "/vm-bad is not JSON");
    harness.awaitIdle(WAIT);
    VirtualMachineNetworkConfig kept = harness.readConfig(ns, "vm-bad");
    PoolCondition cond = kept.getStatus().condition(VmReconciler.IN_SYNCED).orElseThrow();
    assertTrue(
        cond.getMessage().contains("JSON object of interface name to MAC")
            && cond.getMessage().contains("keeps its NICs and addresses"),
        cond.getMessage());
    assertEquals(good.getSpec(), kept.getSpec(), "nothing is lost");
    assertEquals(good.getStatus().getNetworkConfigs(), kept.getStatus().getNetworkConfigs());
    assertEquals("52:54:00:61:06:01", table("net-a").get(ip(good, 0)));

    edit(
        "vm-bad",
        vm ->
            vm.getMetadata()
                .putAnnotationsItem(
                    VmNetworks.MAC_ANNOTATION, "{\"nic-1\":\"52:54:00:61:06:01\"}"));
    assertEquals(
        good.getStatus().getNetworkConfigs(),
        awaitConfig("vm-bad", "52:54:00:61:06:01@net-a", "52:54:00:61:06:02@net-a")
            .getStatus()
            .getNetworkConfigs());
  }

  /** The index of the first event of {@code kind} with every {@code key=value} of {@code parts}. */
  private static int indexOf(List<ProcessEvent> events, String kind, String... parts) {
    for (int i = 0; i < events.size(); i++) {
      ProcessEvent e = events.get(i);
      if (e.kind().equalsIgnoreCase(kind)
          && List.of(parts).stream()
              .allMatch(p -> p.equals(p.split("=", 2)[0] + "=" + e.get(p.split("=", 2)[0])))) {
        return i;
      }
    }
    return -1;
  }
}
