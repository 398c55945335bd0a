package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VmConfigRulesTest {
  private static final IPPool POOL =
      new IPPool().metadata(new V1ObjectMeta().namespace("ns").name("net-48"));
  private static final IPPool OTHER =
      new IPPool().metadata(new V1ObjectMeta().namespace("other").name("net-48"));
  private static final Map<String, List<IPPool>> POOLS =
      Map.of("ns/net-48", List.of(POOL), "ns/twice", List.of(POOL, OTHER));

  private static NetworkConfig nic(String network, String mac, String ip) {
    return new NetworkConfig().networkName(network).macAddress(mac).ipAddress(ip);
  }

  private static List<VmConfigRules.Nic> check(NetworkConfig... nics) {
    return VmConfigRules.check(List.of(nics), n -> POOLS.getOrDefault(n, List.of()));
  }

  @Test
  void aGoodNicHasItsPoolAndNormalisedMacAndNoFinding() {
    VmConfigRules.Nic nic = check(nic("ns/net-48", "52-54-00-AB-00-01", "192.168.48.10")).get(0);
    assertEquals("52:54:00:ab:00:01", nic.mac());
    assertEquals(POOL, nic.pool());
    assertEquals(List.of(), nic.findings());
  }

  @Test
  void findingsComeInOrderAndOnlyAMissingPoolIsPending() {
    VmConfigRules.Nic bad = check(nic("ns/none", "zz", "10.0.0.300")).get(0);
    assertEquals(
        List.of(
            "macAddress 'zz' is not a MAC address; write six hex pairs like 52:54:00:12:34:56",
            "ipAddress '10.0.0.300' is not an IPv4 address; write it like 192.168.0.10 or leave"
                + " it out",
            "networkName 'ns/none' is served by no IPPool; create one with spec.networkName:"
                + " ns/none"),
        bad.findings().stream().map(VmConfigRules.Finding::message).toList());
    assertEquals(
        List.of(false, false, true),
        bad.findings().stream().map(VmConfigRules.Finding::pending).toList());
    assertNull(bad.mac());
    assertNull(bad.pool());

    List<VmConfigRules.Nic> two =
        check(
            nic("ns/twice", "52:54:00:00:00:01", null),
            nic("ns/net-48", "52:54:00:00:00:01", null));
    assertEquals(
        "networkName ns/twice is served by several IPPools (ns/net-48, other/net-48); keep only one",
        two.get(0).findings().get(0).message());
    assertFalse(two.get(0).findings().get(0).pending());
    assertTrue(
        two.get(1).findings().get(0).message().contains("appears on more than one NIC"),
        two.get(1).findings().toString());
  }
}
