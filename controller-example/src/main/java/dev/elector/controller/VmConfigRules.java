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
 * The rules every NIC of a VirtualMachineNetworkConfig must meet: its MAC is a MAC and appears
 * once, a requested {@code ipAddress} is an IPv4 address, and its network is served by exactly one
 * IPPool (upstream asks the same through the NetworkAttachmentDefinition's labels). Admission
 * refuses a new config with any finding; at reconcile a NIC's first finding becomes its {@code
 * Pending} (no pool serves the network yet) or {@code Error} state, with the same message.
 */
final class VmConfigRules {
  private VmConfigRules() {}

  /**
   * One finding about a NIC.
   *
   * @param message names the field ({@code macAddress}, {@code ipAddress} or {@code networkName}),
   *     the value and the fix
   * @param pending true when the NIC only waits for a pool to serve its network
   */
  record Finding(String message, boolean pending) {}

  /**
   * What the rules find about the NIC at {@code index}.
   *
   * @param mac the normalised MAC, or null when it is not a MAC
   * @param pool the one pool serving the network, or null
   * @param findings in the order MAC, repeated MAC, ipAddress, network; empty when the NIC is fine
   */
  record Nic(int index, NetworkConfig spec, String mac, IPPool pool, List<Finding> findings) {
    Nic {
      findings = List.copyOf(findings);
    }
  }

  /** Every problem of {@code config}, each naming the NIC, the value and the fix (admission). */
  static List<String> problems(
      VirtualMachineNetworkConfig config, Function<String, List<IPPool>> poolsOnNetwork) {
    if (config.getSpec() == null) {
      return List.of("spec is missing; set spec.vmName and spec.networkConfigs");
    }
    List<String> problems = new ArrayList<>();
    for (Nic nic : check(config.getSpec().getNetworkConfigs(), poolsOnNetwork)) {
      for (Finding f : nic.findings()) {
        problems.add("spec.networkConfigs[" + nic.index() + "]." + f.message());
      }
    }
    return problems;
  }

  /** The findings about each of {@code nics}, in order. */
  static List<Nic> check(List<NetworkConfig> nics, Function<String, List<IPPool>> poolsOnNetwork) {
    List<Nic> checked = new ArrayList<>();
    Set<String> macs = new HashSet<>();
    for (int i = 0; i < nics.size(); i++) {
      NetworkConfig nic = nics.get(i);
      List<Finding> findings = new ArrayList<>();
      Optional<String> mac = Macs.normalise(nic.getMacAddress());
      if (mac.isEmpty()) {
        findings.add(
            error(
                "macAddress '"
                    + nic.getMacAddress()
                    + "' is not a MAC address; write six hex pairs like 52:54:00:12:34:56"));
      } else if (!macs.add(mac.get())) {
        findings.add(
            error(
                "macAddress "
                    + mac.get()
                    + " appears on more than one NIC of this config; give each NIC its own MAC"));
      }
      String ip = nic.getIpAddress();
      if (ip != null && !ip.isBlank() && Ipv4.parse(ip).isEmpty()) {
        findings.add(
            error(
                "ipAddress '"
                    + ip
                    + "' is not an IPv4 address; write it like 192.168.0.10 or leave it out"));
      }
      String network = nic.getNetworkName();
      List<IPPool> pools = network == null ? List.of() : poolsOnNetwork.apply(network);
      if (pools.isEmpty()) {
        findings.add(
            new Finding(
                "networkName '"
                    + network
                    + "' is served by no IPPool; create one with spec.networkName: "
                    + network,
                true));
      } else if (pools.size() > 1) {
        findings.add(
            error(
                "networkName "
                    + network
                    + " is served by several IPPools ("
                    + String.join(", ", pools.stream().map(KubeObjects::key).sorted().toList())
                    + "); keep only one"));
      }
      checked.add(
          new Nic(i, nic, mac.orElse(null), pools.size() == 1 ? pools.get(0) : null, findings));
    }
    return checked;
  }

  private static Finding error(String message) {
    return new Finding(message, false);
  }
}
