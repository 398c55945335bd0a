package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which interfaces of a VirtualMachine become NICs of its VirtualMachineNetworkConfig. */
class VmNetworksTest {
  private static VirtualMachine vm(Map<String, String> annotations) {
    return new VirtualMachine()
        .metadata(new V1ObjectMeta().namespace("ns").name("vm").annotations(annotations));
  }

  private static List<String> nics(VirtualMachine vm) {
    return VmNetworks.of(vm).nics().stream()
        .map(n -> n.getMacAddress() + "@" + n.getNetworkName())
        .toList();
  }

  @Test
  void multusNetworksWithAMacBecomeNicsInSpecOrder() {
    VirtualMachine vm =
        vm(null)
            .nic("nic-1", "52:54:00:00:00:01", "other/net-a")
            .nic("nic-2", "52:54:00:00:00:02", "net-b");
    assertEquals(
        List.of("52:54:00:00:00:01@other/net-a", "52:54:00:00:00:02@ns/net-b"),
        nics(vm),
        "a networkName without namespace is in the VM's namespace");
  }

  @Test
  void podNetworksAndInterfacesWithoutAMacAreSkipped() {
    VirtualMachine vm =
        vm(null)
            .nic("default", "52:54:00:00:00:09", null)
            .nic("nic-1", null, "net-a")
            .nic("nic-2", "", "net-a");
    assertEquals(List.of(), nics(vm));
  }

  @Test
  void theAnnotationSuppliesMissingMacsAndTheSpecWins() {
    VirtualMachine vm =
        vm(Map.of(
                VmNetworks.MAC_ANNOTATION,
                "{\"nic-1\":\"52:54:00:00:00:aa\",\"nic-2\":\"52:54:00:00:00:bb\","
                    + "\"default\":\"52:54:00:00:00:cc\"}"))
            .nic("default", null, null)
            .nic("nic-1", null, "net-a")
            .nic("nic-2", "52:54:00:00:00:02", "net-a");
    assertEquals(List.of("52:54:00:00:00:aa@ns/net-a", "52:54:00:00:00:02@ns/net-a"), nics(vm));
  }

  @Test
  void aMalformedAnnotationIsAnErrorWithTheFixAndNoNics() {
    for (String bad : List.of("{\"nic-1\":", "[\"52:54:00:00:00:aa\"]", "{\"nic-1\":7}")) {
      VmNetworks.Result r =
          VmNetworks.of(
              vm(Map.of(VmNetworks.MAC_ANNOTATION, bad))
                  .nic("nic-1", "52:54:00:00:00:01", "net-a"));
      assertEquals(List.<NetworkConfig>of(), r.nics(), bad);
      String error = r.annotationError().orElseThrow();
      assertTrue(
          error.contains(VmNetworks.MAC_ANNOTATION)
              && error.contains("ns/vm")
              && error.contains("JSON object of interface name to MAC"),
          error);
    }
  }
}
