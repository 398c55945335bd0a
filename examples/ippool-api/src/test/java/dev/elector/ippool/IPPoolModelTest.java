package dev.elector.ippool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IPPoolModelTest {

  private static final String POOL_JSON =
      """
      {"apiVersion":"network.harvesterhci.io/v1alpha1","kind":"IPPool",
       "metadata":{"name":"net-48","namespace":"default","resourceVersion":"7"},
       "spec":{"networkName":"default/net-48","paused":false,
         "ipv4Config":{"cidr":"172.19.48.0/24","serverIP":"172.19.48.2","router":"172.19.48.1",
           "pool":{"start":"172.19.48.10","end":"172.19.48.100","exclude":["172.19.48.50"]},
           "dns":["1.1.1.1"],"domainName":"vm.example","domainSearch":["vm.example","example"],
           "ntp":["172.19.48.1"],"leaseTime":300}},
       "status":{"ipv4":{"allocated":{"172.19.48.1":"RESERVED","172.19.48.10":"52:54:00:aa:bb:cc"},
         "used":1,"available":89},
         "lastUpdate":"2026-12-02T10:00:00Z",
         "conditions":[{"type":"Registered","status":"True"}]}}
      """;

  @Test
  void readsThePoolAsTheApiServerWritesIt() {
    IPPool pool = JSON.deserialize(POOL_JSON, IPPool.class);

    assertEquals("default/net-48", pool.ref());
    IPv4Config v4 = pool.getSpec().getIpv4Config();
    assertEquals("172.19.48.0/24", v4.getCidr());
    assertEquals("172.19.48.2", v4.getServerIP());
    assertEquals(List.of("172.19.48.50"), v4.getPool().getExclude());
    assertEquals(List.of("vm.example", "example"), v4.getDomainSearch());
    assertEquals(300, v4.leaseTimeOrDefault());
    assertEquals(
        Map.of("172.19.48.1", "RESERVED", "172.19.48.10", "52:54:00:aa:bb:cc"),
        pool.getStatus().getIpv4().getAllocated());
    assertTrue(pool.getStatus().condition(PoolCondition.REGISTERED).orElseThrow().isTrue());
    assertFalse(pool.getSpec().isPaused());
  }

  @Test
  void listsReadTheirItemsAsTheListedKind() {
    IPPoolList pools =
        JSON.deserialize(
            """
        {"apiVersion":"network.harvesterhci.io/v1alpha1","kind":"IPPoolList",
         "metadata":{"resourceVersion":"9"},"items":[%s]}
        """
                .formatted(POOL_JSON),
            IPPoolList.class);
    VirtualMachineNetworkConfigList configs =
        JSON.deserialize(
            """
        {"apiVersion":"network.harvesterhci.io/v1alpha1",
         "kind":"VirtualMachineNetworkConfigList","metadata":{},"items":[
           {"apiVersion":"network.harvesterhci.io/v1alpha1","kind":"VirtualMachineNetworkConfig",
            "metadata":{"name":"vm-1","namespace":"default"}}]}
        """,
            VirtualMachineNetworkConfigList.class);

    assertEquals("9", pools.getMetadata().getResourceVersion());
    IPPool pool = pools.getItems().get(0);
    assertEquals("172.19.48.2", pool.getSpec().getIpv4Config().getServerIP());
    assertEquals("vm-1", configs.getItems().get(0).getMetadata().getName());
    assertEquals("IPPoolList", new IPPoolList().getKind());
    assertEquals(
        "VirtualMachineNetworkConfigList", new VirtualMachineNetworkConfigList().getKind());
    assertEquals(NetworkApis.API_VERSION, new IPPoolList().getApiVersion());
  }

  @Test
  void theUpstreamReadmesSpellingNetworkConfigIsReadAsNetworkConfigs() {
    VirtualMachineNetworkConfig c =
        JSON.deserialize(
            """
        {"apiVersion":"network.harvesterhci.io/v1alpha1","kind":"VirtualMachineNetworkConfig",
         "metadata":{"name":"test-vm","namespace":"default"},
         "spec":{"vmName":"test-vm","networkConfig":[
           {"macAddress":"fa:cf:8e:50:82:fc","networkName":"default/net-48"}]}}
        """,
            VirtualMachineNetworkConfig.class);
    assertEquals(
        List.of(
            new VirtualMachineNetworkConfig.NetworkConfig()
                .macAddress("fa:cf:8e:50:82:fc")
                .networkName("default/net-48")),
        c.getSpec().getNetworkConfigs());
    c.getSpec().networkConfigs(List.of());
    assertFalse(
        JSON.serialize(c).contains("\"networkConfig\""),
        "setting the NICs writes the API's spelling only");
  }

  @Test
  void writesWhatItReads() {
    IPPool pool = JSON.deserialize(POOL_JSON, IPPool.class);
    assertEquals(pool, JSON.deserialize(JSON.serialize(pool), IPPool.class));
  }

  @Test
  void absentListsAndLeaseTimeReadAsEmptyAndDefault() {
    IPPool pool =
        JSON.deserialize(
            """
        {"apiVersion":"network.harvesterhci.io/v1alpha1","kind":"IPPool",
         "metadata":{"name":"p","namespace":"n"},
         "spec":{"networkName":"n/p","ipv4Config":{"cidr":"10.0.0.0/24","serverIP":"10.0.0.2",
           "pool":{"start":"10.0.0.10","end":"10.0.0.20"}}}}
        """,
            IPPool.class);
    IPv4Config v4 = pool.getSpec().getIpv4Config();
    assertEquals(List.of(), v4.getDns());
    assertEquals(List.of(), v4.getPool().getExclude());
    assertEquals(IPv4Config.DEFAULT_LEASE_TIME_SECONDS, v4.leaseTimeOrDefault());
    assertFalse(pool.getSpec().isPaused());
  }

  @Test
  void markersAreNotMacs() {
    assertTrue(IPv4Status.isMarker("EXCLUDED"));
    assertTrue(IPv4Status.isMarker("RESERVED"));
    assertFalse(IPv4Status.isMarker("52:54:00:aa:bb:cc"));
  }

  @Test
  void parsesAPoolReference() {
    assertEquals(new IPPoolRef("default", "net-48"), IPPoolRef.parse(" default/net-48 "));
  }

  @Test
  void aBadPoolReferenceSaysWhatIsWrongAndTheExpectedForm() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> IPPoolRef.parse(""))
            .getMessage()
            .contains("--ippool-ref NAMESPACE/NAME or set IPPOOL_REF"));
    for (String bad : List.of("net-48", "/net-48", "default/", "a/b/c")) {
      String message =
          assertThrows(IllegalArgumentException.class, () -> IPPoolRef.parse(bad)).getMessage();
      assertTrue(message.contains("'" + bad + "'") && message.contains("NAMESPACE/NAME"), message);
    }
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> IPPoolRef.parse("Default/x"))
            .getMessage()
            .contains("namespace 'Default'"));
  }

  @Test
  void bothCrdManifestsArePackagedAndNameTheirGroupAndKind() {
    List<V1CustomResourceDefinition> crds = NetworkCrds.definitions();
    assertEquals(
        List.of(IPPool.KIND, VirtualMachineNetworkConfig.KIND),
        crds.stream().map(c -> c.getSpec().getNames().getKind()).toList());
    for (V1CustomResourceDefinition crd : crds) {
      assertEquals(NetworkApis.GROUP, crd.getSpec().getGroup());
      assertEquals(NetworkApis.VERSION, crd.getSpec().getVersions().get(0).getName());
    }
  }
}
