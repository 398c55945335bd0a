package dev.elector.controller;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The NICs of a VirtualMachine that need an address from a pool, as VirtualMachineNetworkConfig
 * NICs: every network of spec.template.spec.networks that is a Multus network and whose interface
 * has a MAC. The MAC is the interface's spec.macAddress, else the one the MAC-address annotation
 * records for that interface name (Harvester writes there the MACs KubeVirt assigned, as a JSON
 * object of interface name to MAC). Interfaces without a MAC and networks of other kinds (pod) are
 * skipped. A Multus networkName without a namespace is in the VM's namespace, as Multus reads it,
 * so it is written {@code namespace/name} to match the pools' spec.networkName.
 */
final class VmNetworks {
  /** The annotation in which Harvester records the MACs of a VM's interfaces. */
  static final String MAC_ANNOTATION = "harvesterhci.io/mac-address";

  /** The NICs, or why the annotation cannot be read (then there are no NICs). */
  record Result(List<NetworkConfig> nics, Optional<String> annotationError) {}

  private VmNetworks() {}

  static Result of(VirtualMachine vm) {
    String namespace = vm.getMetadata().getNamespace();
    Map<String, String> annotations = vm.getMetadata().getAnnotations();
    String recorded = annotations == null ? null : annotations.get(MAC_ANNOTATION);
    Map<String, String> annotated = new HashMap<>();
    if (recorded != null && !recorded.isBlank()) {
      Optional<String> error = parse(recorded, annotated);
      if (error.isPresent()) {
        return new Result(
            List.of(),
            Optional.of(
                "annotation "
                    + MAC_ANNOTATION
                    + " of"
                    + " VirtualMachine "
                    + namespace
                    + "/"
                    + vm.getMetadata().getName()
                    + " "
                    + error.get()
                    + "; write it as a JSON object of interface name to MAC, like"
                    + " {\"nic-1\":\"52:54:00:12:34:56\"}, or remove it"));
      }
    }
    Map<String, String> specMacs = new HashMap<>();
    for (VirtualMachine.Interface i : vm.interfaces()) {
      if (i.name() != null && i.macAddress() != null && !i.macAddress().isBlank()) {
        specMacs.put(i.name(), i.macAddress());
      }
    }
    List<String> interfaceNames =
        vm.interfaces().stream().map(VirtualMachine.Interface::name).toList();
    List<NetworkConfig> nics = new ArrayList<>();
    for (VirtualMachine.Network network : vm.networks()) {
      String multus = network.multusNetworkName();
      if (multus == null || multus.isBlank() || !interfaceNames.contains(network.name())) {
        continue;
      }
      String mac = specMacs.getOrDefault(network.name(), annotated.get(network.name()));
      if (mac == null || mac.isBlank()) {
        continue;
      }
      nics.add(
          new NetworkConfig()
              .networkName(multus.contains("/") ? multus : namespace + "/" + multus)
              .macAddress(mac));
    }
    return new Result(nics, Optional.empty());
  }

  private static Optional<String> parse(String json, Map<String, String> into) {
    JsonElement tree;
    try {
      tree = JsonParser.parseString(json);
    } catch (JsonParseException e) {
      return Optional.of("is not JSON (" + e.getMessage() + ")");
    }
    if (!tree.isJsonObject()) {
      return Optional.of("is not a JSON object");
    }
    JsonObject object = tree.getAsJsonObject();
    for (Map.Entry<String, JsonElement> e : object.entrySet()) {
      JsonElement value = e.getValue();
      if (!value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()) {
        return Optional.of(
            "maps interface '" + e.getKey() + "' to " + value + ", not to a MAC string");
      }
      into.put(e.getKey(), value.getAsString());
    }
    return Optional.empty();
  }
}
