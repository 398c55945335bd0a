package dev.elector.controller;

import dev.elector.LeaderElector;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.micrometer.ElectorMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The controller's meters: the elector's (with client-go's leader gauge), the controller's own
 * counters, and the upstream vm-dhcp-controller's gauges under their upstream names, so that its
 * dashboards keep working: {@code vmdhcpcontroller_ippool_used} and {@code
 * vmdhcpcontroller_ippool_available} (tags ippool, network, cidr) and {@code
 * vmdhcpcontroller_vmnetcfg_status} (1 per NIC, tags vmnetcfg, network, mac, ip, state, as upstream
 * names them). The gauges read the informer cache, but only the leading replica exports them, as
 * upstream's leader alone does, so {@code sum()} over all pods counts each pool once; a standby
 * exports none. {@link #refresh()} re-reads them and is called before each scrape.
 */
final class ControllerMetrics {
  private final IPPoolController controller;
  private final ClusterCache cache;
  private final MultiGauge used;
  private final MultiGauge available;
  private final MultiGauge nics;

  ControllerMetrics(IPPoolController controller, MeterRegistry registry) {
    this.controller = controller;
    this.cache = controller.cache();
    ElectorMetrics.of(controller.electors().toArray(LeaderElector[]::new)).bindTo(registry);
    ControllerStats stats = controller.stats();
    counter(
        registry,
        "ippool.controller.addresses.allocated",
        "addresses allocated to NICs",
        stats.addressesAllocated);
    counter(
        registry,
        "ippool.controller.addresses.released",
        "addresses given back",
        stats.addressesReleased);
    counter(
        registry,
        "ippool.controller.conflicts.retried",
        "writes retried after a conflict (another writer changed the object)",
        stats.conflictsRetried);
    counter(
        registry, "ippool.controller.reconciles", "reconciles run while leading", stats.reconciles);
    this.used =
        MultiGauge.builder("vmdhcpcontroller.ippool.used")
            .description("Amount of IP addresses which are in use in an IPPool")
            .register(registry);
    this.available =
        MultiGauge.builder("vmdhcpcontroller.ippool.available")
            .description("Amount of IP addresses which are available in an IPPool")
            .register(registry);
    this.nics =
        MultiGauge.builder("vmdhcpcontroller.vmnetcfg.status")
            .description("Information and status of the VirtualMachineNetworkConfig objects")
            .register(registry);
  }

  private static void counter(
      MeterRegistry registry, String name, String description, AtomicLong value) {
    FunctionCounter.builder(name, value, AtomicLong::get)
        .description(description)
        .register(registry);
  }

  /** Re-reads the pools and configs from the informer cache into the gauges. */
  void refresh() {
    List<MultiGauge.Row<?>> usedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> availableRows = new ArrayList<>();
    List<MultiGauge.Row<?>> nicRows = new ArrayList<>();
    // each pool's and config's rows come from the replica that reconciles it: the leader, or over
    // shards the leader of its shard
    for (IPPool pool : cache.allPools()) {
      if (!controller.ownsPool(KubeObjects.key(pool))) {
        continue;
      }
      IPv4Status ipv4 = pool.getStatus() == null ? null : pool.getStatus().getIpv4();
      if (ipv4 == null || pool.getSpec() == null || pool.getSpec().getIpv4Config() == null) {
        continue;
      }
      Tags tags =
          Tags.of(
              "ippool",
              pool.ref(),
              "network",
              String.valueOf(pool.getSpec().getNetworkName()),
              "cidr",
              String.valueOf(pool.getSpec().getIpv4Config().getCidr()));
      usedRows.add(MultiGauge.Row.of(tags, ipv4.getUsed() == null ? 0 : ipv4.getUsed()));
      availableRows.add(
          MultiGauge.Row.of(tags, ipv4.getAvailable() == null ? 0 : ipv4.getAvailable()));
    }
    for (VirtualMachineNetworkConfig config : cache.allVmConfigs()) {
      if (config.getStatus() == null || !controller.ownsVmConfig(KubeObjects.key(config))) {
        continue;
      }
      for (VirtualMachineNetworkConfig.NetworkConfigStatus nic :
          config.getStatus().getNetworkConfigs()) {
        nicRows.add(
            MultiGauge.Row.of(
                Tags.of(
                    "vmnetcfg",
                    KubeObjects.key(config),
                    "network",
                    String.valueOf(nic.getNetworkName()),
                    "mac",
                    String.valueOf(nic.getMacAddress()),
                    "ip",
                    nic.getAllocatedIPAddress() == null ? "" : nic.getAllocatedIPAddress(),
                    "state",
                    String.valueOf(nic.getState())),
                1));
      }
    }
    used.register(usedRows, true);
    available.register(availableRows, true);
    nics.register(nicRows, true);
  }
}
