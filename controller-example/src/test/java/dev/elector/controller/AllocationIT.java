package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Addresses for VirtualMachineNetworkConfigs: allocation, idempotence, requested addresses,
 * release, and every kind of bad input as a clear per-NIC state.
 */
@KubeTest
class AllocationIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static ControllerHarness harness;
  private static String ns;

  @BeforeAll
  static void start(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    harness = ControllerHarness.create(cluster, "allocation-it");
    ns = namespace.name();
    harness.start("replica-a", 2);
    harness.awaitLeader(WAIT);
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  private static String network(String pool) {
    return ns + "/" + pool;
  }

  private static IPPool registeredPool(String name, int subnet) throws Exception {
    return registered(ControllerHarness.pool(ns, name, subnet));
  }

  private static IPPool registered(IPPool pool) throws Exception {
    String name = pool.getMetadata().getName();
    harness.create(pool);
    Await.until(
        name + " registers",
        WAIT,
        () -> {
          IPPool read = harness.read(ns, name);
          return read.getStatus() != null
              && read.getStatus()
                  .condition(PoolCondition.REGISTERED)
                  .map(PoolCondition::isTrue)
                  .orElse(false);
        });
    return harness.read(ns, name);
  }

  private static VirtualMachineNetworkConfig awaitNics(String name, String... states)
      throws Exception {
    Await.until(
        name + " NIC states " + List.of(states),
        WAIT,
        () -> {
          VirtualMachineNetworkConfig c = harness.readConfig(ns, name);
          return c.getStatus() != null
              && c.getStatus().getNetworkConfigs().stream()
                  .map(NetworkConfigStatus::getState)
                  .toList()
                  .equals(List.of(states));
        });
    return harness.readConfig(ns, name);
  }

  private static NetworkConfigStatus nicStatus(VirtualMachineNetworkConfig c, int i) {
    return c.getStatus().getNetworkConfigs().get(i);
  }

  private static PoolCondition allocated(VirtualMachineNetworkConfig c) {
    return c.getStatus().condition(PoolCondition.ALLOCATED).orElseThrow();
  }

  /** Waits for a Kubernetes Event about {@code object} whose message starts with {@code text}. */
  private static void awaitEvent(String object, String type, String reason, String text)
      throws Exception {
    io.kubernetes.client.openapi.apis.CoreV1Api core =
        new io.kubernetes.client.openapi.apis.CoreV1Api(harness.admin);
    Await.until(
        type + " event " + reason + " on " + object + ": " + text,
        WAIT,
        () ->
            core
                .listNamespacedEvent(ns)
                .fieldSelector("involvedObject.name=" + object)
                .execute()
                .getItems()
                .stream()
                .anyMatch(
                    e ->
                        type.equals(e.getType())
                            && reason.equals(e.getReason())
                            && e.getMessage() != null
                            && e.getMessage().startsWith(text)
                            && "ippool-controller".equals(e.getReportingComponent())));
  }

  private static Map<String, String> table(String pool) throws Exception {
    return harness.read(ns, pool).getStatus().getIpv4().getAllocated();
  }

  @Test
  void everyNicGetsAnAddressRecordedInThePoolAndInTheConfig() throws Exception {
    registeredPool("alloc", 31);
    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-1",
            List.of(
                ControllerHarness.nic(network("alloc"), "52:54:00:31:00:01"),
                ControllerHarness.nic(network("alloc"), "52:54:00:31:00:02"))));

    VirtualMachineNetworkConfig c = awaitNics("vm-1", "Allocated", "Allocated");
    assertEquals("10.31.0.10", nicStatus(c, 0).getAllocatedIPAddress());
    assertEquals("10.31.0.11", nicStatus(c, 1).getAllocatedIPAddress());
    assertEquals(
        List.of("True", "Allocated", "2 of 2 NICs have an address"),
        List.of(allocated(c).getStatus(), allocated(c).getReason(), allocated(c).getMessage()));
    assertTrue(c.getMetadata().getFinalizers().contains(VmConfigReconciler.FINALIZER));
    Await.until(
        "the pool counts them",
        WAIT,
        () -> {
          IPPool p = harness.read(ns, "alloc");
          return p.getStatus().getIpv4().getUsed() == 2
              && p.getStatus().getIpv4().getAvailable() == 239;
        });
    assertEquals("52:54:00:31:00:01", table("alloc").get("10.31.0.10"));
    awaitEvent(
        "vm-1",
        "Normal",
        "Allocated",
        "10.31.0.10 to 52:54:00:31:00:01 from IPPool " + ns + "/alloc");
    // /metrics carries the upstream controller's gauges under their upstream names.
    java.util.function.Supplier<String> metrics =
        ControllerMain.prometheus(harness.controller("replica-a"));
    String pool = "cidr=\"10.31.0.0/24\",ippool=\"" + ns + "/alloc\",network=\"" + ns + "/alloc\"";
    String nic =
        "vmdhcpcontroller_vmnetcfg_status{ip=\"10.31.0.10\","
            + "mac=\"52:54:00:31:00:01\",network=\""
            + ns
            + "/alloc\",state=\"Allocated\","
            + "vmnetcfg=\""
            + ns
            + "/vm-1\"} 1.0";
    // The gauges read the informer cache: the pool and the config reach it on watches of their own.
    Await.until(
        "/metrics shows the pool's use and vm-1's NIC",
        WAIT,
        () -> {
          String now = metrics.get();
          return now.contains("vmdhcpcontroller_ippool_used{" + pool + "} 2.0")
              && now.contains(nic);
        });
    String scrape = metrics.get();
    // only the leader exports the upstream gauges, so sum() over pods counts each pool once
    IPPoolController standby = harness.start("replica-standby", 1);
    Await.until("the standby has synced", WAIT, standby::isSynced);
    String standbyScrape = ControllerMain.prometheus(standby).get();
    assertFalse(standbyScrape.contains("vmdhcpcontroller_ippool_used{"), standbyScrape);
    assertFalse(standbyScrape.contains("vmdhcpcontroller_vmnetcfg_status{"), standbyScrape);
    harness.stop("replica-standby");
    assertTrue(scrape.contains("vmdhcpcontroller_ippool_available{" + pool + "} 239.0"), scrape);
    assertTrue(scrape.contains(nic), scrape);
    assertTrue(
        scrape
            .lines()
            .anyMatch(
                l ->
                    l.startsWith("ippool_controller_addresses_allocated_total")
                        && Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) >= 2),
        scrape);

    // Idempotent: a third NIC gets the next address, the first two keep theirs.
    VirtualMachineNetworkConfig more = harness.readConfig(ns, "vm-1");
    List<NetworkConfig> nics = new ArrayList<>(more.getSpec().getNetworkConfigs());
    nics.add(ControllerHarness.nic(network("alloc"), "52:54:00:31:00:03"));
    more.getSpec().networkConfigs(nics);
    harness.configs.update(more).throwsApiException();
    VirtualMachineNetworkConfig three = awaitNics("vm-1", "Allocated", "Allocated", "Allocated");
    assertEquals(
        List.of("10.31.0.10", "10.31.0.11", "10.31.0.12"),
        three.getStatus().getNetworkConfigs().stream()
            .map(NetworkConfigStatus::getAllocatedIPAddress)
            .toList());
  }

  @Test
  void aFreeRequestedAddressIsHonouredAndATakenOneIsAnError() throws Exception {
    registeredPool("requested", 32);
    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-req-1",
            List.of(
                ControllerHarness.nic(network("requested"), "52:54:00:32:00:01")
                    .ipAddress("10.32.0.77"))));
    VirtualMachineNetworkConfig first = awaitNics("vm-req-1", "Allocated");
    assertEquals("10.32.0.77", nicStatus(first, 0).getAllocatedIPAddress());

    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-req-2",
            List.of(
                ControllerHarness.nic(network("requested"), "52:54:00:32:00:02")
                    .ipAddress("10.32.0.77"))));
    VirtualMachineNetworkConfig second = awaitNics("vm-req-2", "Error");
    assertEquals(
        "requested ipAddress 10.32.0.77 is allocated to MAC 52:54:00:32:00:01; request"
            + " a free address or leave ipAddress out",
        nicStatus(second, 0).getMessage());
    assertNull(nicStatus(second, 0).getAllocatedIPAddress());
    assertEquals("AllocationFailed", allocated(second).getReason());
  }

  @Test
  void aMalformedMacIsAnErrorThatNamesTheForm() throws Exception {
    registeredPool("badmac", 33);
    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-badmac",
            List.of(
                ControllerHarness.nic(network("badmac"), "52:54:00:zz:00:01"),
                ControllerHarness.nic(network("badmac"), "52:54:00:33:00:02"))));
    VirtualMachineNetworkConfig c = awaitNics("vm-badmac", "Error", "Allocated");
    assertEquals(
        "macAddress '52:54:00:zz:00:01' is not a MAC address; write six hex pairs like"
            + " 52:54:00:12:34:56",
        nicStatus(c, 0).getMessage());
    assertEquals("False", allocated(c).getStatus());
    assertTrue(allocated(c).getMessage().startsWith("1 of 2 NICs have an address"));
  }

  @Test
  void anUnknownNetworkIsPendingUntilAPoolServesIt() throws Exception {
    harness.create(
        ControllerHarness.vmConfig(
            ns, "vm-later", List.of(ControllerHarness.nic(network("later"), "52:54:00:34:00:01"))));
    VirtualMachineNetworkConfig c = awaitNics("vm-later", "Pending");
    assertEquals(
        "networkName '"
            + network("later")
            + "' is served by no IPPool; create one with spec.networkName: "
            + network("later"),
        nicStatus(c, 0).getMessage(),
        "the admission rule's message");

    registeredPool("later", 34);
    assertEquals(
        "10.34.0.10", nicStatus(awaitNics("vm-later", "Allocated"), 0).getAllocatedIPAddress());
  }

  @Test
  void aPausedPoolKeepsAddressesButAllocatesNoNewOnes() throws Exception {
    registeredPool("paused", 35);
    harness.create(
        ControllerHarness.vmConfig(
            ns, "vm-p-1", List.of(ControllerHarness.nic(network("paused"), "52:54:00:35:00:01"))));
    awaitNics("vm-p-1", "Allocated");
    harness.edit(harness.read(ns, "paused"), p -> p.getSpec().paused(true));
    Await.until(
        "paused",
        WAIT,
        () ->
            harness
                .read(ns, "paused")
                .getStatus()
                .condition(PoolCondition.STOPPED)
                .orElseThrow()
                .isTrue());

    harness.create(
        ControllerHarness.vmConfig(
            ns, "vm-p-2", List.of(ControllerHarness.nic(network("paused"), "52:54:00:35:00:02"))));
    VirtualMachineNetworkConfig waiting = awaitNics("vm-p-2", "Pending");
    assertTrue(
        nicStatus(waiting, 0)
            .getMessage()
            .contains("is paused; addresses are allocated" + " again when spec.paused is false"),
        nicStatus(waiting, 0).getMessage());
    assertEquals(
        "10.35.0.10", nicStatus(harness.readConfig(ns, "vm-p-1"), 0).getAllocatedIPAddress());

    harness.edit(harness.read(ns, "paused"), p -> p.getSpec().paused(false));
    assertEquals(
        "10.35.0.11", nicStatus(awaitNics("vm-p-2", "Allocated"), 0).getAllocatedIPAddress());
  }

  @Test
  void aFullPoolIsAnErrorUntilAnAddressIsReleased() throws Exception {
    IPPool small = ControllerHarness.pool(ns, "full", 36);
    small.getSpec().getIpv4Config().getPool().start("10.36.0.10").end("10.36.0.11");
    registered(small);
    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-full-1",
            List.of(
                ControllerHarness.nic(network("full"), "52:54:00:36:00:01"),
                ControllerHarness.nic(network("full"), "52:54:00:36:00:02"))));
    awaitNics("vm-full-1", "Allocated", "Allocated");

    harness.create(
        ControllerHarness.vmConfig(
            ns, "vm-full-2", List.of(ControllerHarness.nic(network("full"), "52:54:00:36:00:03"))));
    VirtualMachineNetworkConfig refused = awaitNics("vm-full-2", "Error");
    assertTrue(
        nicStatus(refused, 0)
            .getMessage()
            .startsWith(
                "the pool is full: all 2 addresses" + " of 10.36.0.10-10.36.0.11 are allocated"),
        nicStatus(refused, 0).getMessage());
    awaitEvent("full", "Warning", "PoolExhausted", "no free address is left");
    awaitEvent("vm-full-2", "Warning", "AllocationFailed", "52:54:00:36:00:03: the pool is full");

    harness.configs.delete(ns, "vm-full-1").throwsApiException();
    Await.until(
        "vm-full-1 is released and gone",
        WAIT,
        () -> harness.absent(() -> harness.readConfig(ns, "vm-full-1")));
    assertEquals(
        "10.36.0.10", nicStatus(awaitNics("vm-full-2", "Allocated"), 0).getAllocatedIPAddress());
    Await.until(
        "the table holds only vm-full-2",
        WAIT,
        () ->
            table("full")
                .equals(
                    Map.of(
                        "10.36.0.1",
                        "RESERVED",
                        "10.36.0.2",
                        "RESERVED",
                        "10.36.0.10",
                        "52:54:00:36:00:03")));
  }

  @Test
  void aNicRemovedFromTheSpecReleasesItsAddress() throws Exception {
    registeredPool("shrink", 37);
    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-shrink",
            List.of(
                ControllerHarness.nic(network("shrink"), "52:54:00:37:00:01"),
                ControllerHarness.nic(network("shrink"), "52:54:00:37:00:02"))));
    awaitNics("vm-shrink", "Allocated", "Allocated");
    VirtualMachineNetworkConfig c = harness.readConfig(ns, "vm-shrink");
    c.getSpec().networkConfigs(List.of(c.getSpec().getNetworkConfigs().get(1)));
    harness.configs.update(c).throwsApiException();

    awaitNics("vm-shrink", "Allocated");
    Await.until(
        "the removed NIC's address is free",
        WAIT,
        () -> {
          IPPool p = harness.read(ns, "shrink");
          return !p.getStatus().getIpv4().getAllocated().containsValue("52:54:00:37:00:01")
              && p.getStatus().getIpv4().getUsed() == 1;
        });
  }

  @Test
  void aPausedConfigReleasesItsAddressesAsUpstreamsDoesAndIsAllocatedAgainWhenResumed()
      throws Exception {
    registeredPool("release", 39);
    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-release",
            List.of(
                ControllerHarness.nic(network("release"), "52:54:00:39:00:01"),
                ControllerHarness.nic(network("release"), "52:54:00:39:00:02"))));
    awaitNics("vm-release", "Allocated", "Allocated");

    VirtualMachineNetworkConfig c = harness.readConfig(ns, "vm-release");
    c.getSpec().paused(true);
    harness.configs.update(c).throwsApiException();
    Await.until(
        "vm-release is Disabled and its NICs hold no address",
        WAIT,
        () -> {
          VirtualMachineNetworkConfig read = harness.readConfig(ns, "vm-release");
          return read.getStatus()
                  .condition(PoolCondition.DISABLED)
                  .map(PoolCondition::isTrue)
                  .orElse(false)
              && read.getStatus().getNetworkConfigs().stream()
                  .allMatch(
                      n ->
                          NetworkConfigStatus.STATE_PENDING.equals(n.getState())
                              && n.getAllocatedIPAddress() == null);
        });
    VirtualMachineNetworkConfig paused = harness.readConfig(ns, "vm-release");
    assertEquals("Paused", allocated(paused).getReason());
    assertTrue(
        nicStatus(paused, 0).getMessage().contains("released: spec.paused is true"),
        nicStatus(paused, 0).getMessage());
    assertFalse(
        table("release").containsValue("52:54:00:39:00:01")
            || table("release").containsValue("52:54:00:39:00:02"),
        "the pool holds none of its MACs while it is paused: " + table("release"));

    VirtualMachineNetworkConfig resume = harness.readConfig(ns, "vm-release");
    resume.getSpec().paused(false);
    harness.configs.update(resume).throwsApiException();
    VirtualMachineNetworkConfig resumed = awaitNics("vm-release", "Allocated", "Allocated");
    PoolCondition disabled = resumed.getStatus().condition(PoolCondition.DISABLED).orElseThrow();
    assertEquals(List.of("False", "Resumed"), List.of(disabled.getStatus(), disabled.getReason()));
    assertEquals(
        "52:54:00:39:00:01", table("release").get(nicStatus(resumed, 0).getAllocatedIPAddress()));
    assertEquals(
        "52:54:00:39:00:02", table("release").get(nicStatus(resumed, 1).getAllocatedIPAddress()));
  }

  @Test
  void withKeepAddressesWhilePausedAPausedConfigKeepsThemAndIsReconciledOnlyWhenResumed()
      throws Exception {
    // this test's own leader, with the option; the class's default leader comes back after it
    harness.stop("replica-a");
    harness.start("replica-keep", 2, b -> b.keepAddressesWhilePaused(true));
    assertTrue(harness.awaitLeader(WAIT) == harness.controller("replica-keep"));
    try {
      keepingWhilePaused();
    } finally {
      harness.stop("replica-keep");
      harness.start("replica-a", 2);
      harness.awaitLeader(WAIT);
    }
  }

  private void keepingWhilePaused() throws Exception {
    registeredPool("hold", 38);
    harness.create(
        ControllerHarness.vmConfig(
            ns,
            "vm-hold",
            List.of(
                ControllerHarness.nic(network("hold"), "52:54:00:38:00:01"),
                ControllerHarness.nic(network("hold"), "52:54:00:38:00:02"))));
    awaitNics("vm-hold", "Allocated", "Allocated");
    Map<String, String> before = table("hold");

    // One update pauses the config and drops its first NIC: the Disabled condition, written by
    // the reconcile of that very generation, shows the controller saw the removal and kept
    // the address.
    VirtualMachineNetworkConfig c = harness.readConfig(ns, "vm-hold");
    c.getSpec().paused(true).networkConfigs(List.of(c.getSpec().getNetworkConfigs().get(1)));
    harness.configs.update(c).throwsApiException();
    Await.until(
        "vm-hold is Disabled",
        WAIT,
        () ->
            harness
                .readConfig(ns, "vm-hold")
                .getStatus()
                .condition(PoolCondition.DISABLED)
                .map(PoolCondition::isTrue)
                .orElse(false));

    VirtualMachineNetworkConfig paused = harness.readConfig(ns, "vm-hold");
    assertEquals(
        "Paused", paused.getStatus().condition(PoolCondition.DISABLED).orElseThrow().getReason());
    assertEquals(
        List.of("10.38.0.10", "10.38.0.11"),
        paused.getStatus().getNetworkConfigs().stream()
            .map(NetworkConfigStatus::getAllocatedIPAddress)
            .toList(),
        "both NICs keep their addresses while paused");
    assertEquals(before, table("hold"), "the pool keeps both allocations while paused");

    VirtualMachineNetworkConfig resume = harness.readConfig(ns, "vm-hold");
    resume.getSpec().paused(false);
    harness.configs.update(resume).throwsApiException();
    VirtualMachineNetworkConfig resumed = awaitNics("vm-hold", "Allocated");
    assertEquals("10.38.0.11", nicStatus(resumed, 0).getAllocatedIPAddress());
    PoolCondition stopped = resumed.getStatus().condition(PoolCondition.DISABLED).orElseThrow();
    assertEquals(List.of("False", "Resumed"), List.of(stopped.getStatus(), stopped.getReason()));
    Await.until(
        "the dropped NIC's address is free after resuming",
        WAIT,
        () -> !table("hold").containsValue("52:54:00:38:00:01"));
  }
}
