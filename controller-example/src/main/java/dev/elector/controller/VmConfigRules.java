package dev.elector.controller;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The rules a new VirtualMachineNetworkConfig must meet at admission: every NIC's network is served
 * by exactly one IPPool (upstream asks the same through the NetworkAttachmentDefinition's labels),
 * its MAC is a MAC and appears once, and a requested {@code ipAddress} is an IPv4 address. At
 * reconcile the same findings become the NIC's {@code Pending} or {@code Error} state.
 */
final class VmConfigRules {
  private VmConfigRules() {}

  /** Every problem of {@code config}, each naming the NIC, the value and the fix. */
  static List<String> problems(
      VirtualMachineNetworkConfig config, Function<String, List<IPPool>> poolsOnNetwork) {
    List<String> problems = new ArrayList<>();
    if (config.getSpec() == null) {
      return List.of("spec is missing; set spec.vmName and spec.networkConfigs");
    }
    Set<String> macs = new HashSet<>();
    List<NetworkConfig> nics = config.getSpec().getNetworkConfigs();
    for (int i = 0; i < nics.size(); i++) {
      NetworkConfig nic = nics.get(i);
      String field = "spec.networkConfigs[" + i + "]";
      String network = nic.getNetworkName();
      List<IPPool> pools = network == null ? List.of() : poolsOnNetwork.apply(network);
      if (pools.isEmpty()) {
        problems.add(
            field
                + ".networkName '"
                + network
                + "' is served by no IPPool; create an IPPool with spec.networkName "
                + network
                + " first, or use the network of an existing pool");
      } else if (pools.size() > 1) {
        problems.add(
            field
                + ".networkName "
                + network
                + " is served by several IPPools ("
                + String.join(", ", pools.stream().map(KubeObjects::key).sorted().toList())
                + "); delete all but one");
      }
      Optional<String> mac = Macs.normalise(nic.getMacAddress());
      if (mac.isEmpty()) {
        problems.add(
            field
                + ".macAddress '"
                + nic.getMacAddress()
                + "' is not a MAC address; write it like 52:54:00:12:34:56");
      } else if (!macs.add(mac.get())) {
        problems.add(
            field + ".macAddress " + mac.get() + " is listed twice; give each NIC its own MAC");
      }
      String ip = nic.getIpAddress();
      if (ip != null && !ip.isBlank() && Ipv4.parse(ip).isEmpty()) {
        problems.add(
            field
                + ".ipAddress '"
                + ip
                + "' is not an IPv4 address; write it like 192.168.0.10 or leave it out");
      }
    }
    return problems;
  }
}
