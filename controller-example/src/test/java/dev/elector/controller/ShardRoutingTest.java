package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ShardRoutingTest {
  private static final int SHARDS = 6;

  private final Map<String, VirtualMachineNetworkConfig> configs = new HashMap<>();
  private final Map<String, List<IPPool>> pools = new HashMap<>();
  private final ShardRouting routing =
      new ShardRouting(SHARDS, configs::get, network -> pools.getOrDefault(network, List.of()));

  @Test
  void aPoolsShardIsFnv1aOfNamespaceSlashNameModuloTheCount() {
    // fixed for good: replicas of different versions must agree (computed independently)
    assertEquals(1, ShardRouting.shardOf("default", "pool-a", 6));
    assertEquals(2, ShardRouting.shardOf("default", "pool-a", 7));
    assertEquals(455, ShardRouting.shardOf("default", "pool-a", 1000));
    assertEquals(0, ShardRouting.shardOf("default", "pool-b", 6));
    assertEquals(3, ShardRouting.shardOf("tenant-1", "vlan-100", 6));
    assertEquals(5, ShardRouting.shardOf("tenant-1", "vlan-100", 7));
    assertEquals(5, ShardRouting.shardOf("kube-system", "x", 6));
    // a hash above 2^31 is taken unsigned; names are hashed as UTF-8
    assertEquals(1, ShardRouting.shardOf("vm-dhcp", "é", 6));
    assertEquals(285, ShardRouting.shardOf("vm-dhcp", "é", 1000));
  }

  @Test
  void poolsSpreadOverEveryShard() {
    int[] counts = new int[SHARDS];
    for (int ns = 0; ns < 10; ns++) {
      for (int p = 0; p < 60; p++) {
        counts[ShardRouting.shardOf("ns-" + ns, "pool-" + p, SHARDS)]++;
      }
    }
    for (int shard = 0; shard < SHARDS; shard++) {
      assertTrue(
          counts[shard] > 70 && counts[shard] < 130,
          "shard " + shard + " got " + counts[shard] + " of 600 pools");
    }
  }

  @Test
  void eachPoolBelongsToExactlyOneShard() {
    for (String key : List.of("default/pool-a", "default/pool-b", "tenant-1/vlan-100")) {
      List<Integer> owners =
          IntStream.range(0, SHARDS).filter(s -> routing.owned(s).pool(key)).boxed().toList();
      String[] nsName = key.split("/");
      assertEquals(List.of(ShardRouting.shardOf(nsName[0], nsName[1], SHARDS)), owners, key);
    }
  }

  @Test
  void aConfigGoesToTheShardOfThePoolServingItsNetworkOnly() {
    IPPool pool = pool("tenant-1", "vlan-100", "tenant-1/net-100");
    configs.put("vms/web-1", config("vms", "web-1", List.of("tenant-1/net-100"), List.of()));
    int poolShard = routing.pool(KubeObjects.key(pool));
    assertEquals(3, poolShard);
    // the config's own key hashes elsewhere: it is the pool that decides
    assertEquals(2, ShardRouting.shardOf("vms", "web-1", SHARDS));
    assertEquals(poolShard, routing.vmConfig("vms/web-1"));
    for (int shard = 0; shard < SHARDS; shard++) {
      assertEquals(
          shard == poolShard, routing.owned(shard).vmConfig("vms/web-1"), "shard " + shard);
    }
  }

  @Test
  void aConfigOnPoolsOfSeveralShardsGoesToTheLowestOfThem() {
    pool("default", "pool-a", "net-a"); // shard 1
    pool("tenant-1", "vlan-100", "net-100"); // shard 3
    configs.put("vms/vm-2", config("vms", "vm-2", List.of("net-100", "net-a"), List.of()));
    assertEquals(1, routing.vmConfig("vms/vm-2"));
  }

  @Test
  void aConfigKeepsTheShardOfAPoolItHoldsAnAddressInUntilItIsReleased() {
    pool("default", "pool-b", "net-b"); // shard 0
    pool("tenant-1", "vlan-100", "net-100"); // shard 3
    // the spec moved from net-b to net-100; the status still holds an address of net-b
    configs.put("vms/vm-3", config("vms", "vm-3", List.of("net-100"), List.of("net-b")));
    assertEquals(0, routing.vmConfig("vms/vm-3"));
  }

  @Test
  void aConfigOnNoServedNetworkGoesToTheShardOfItsOwnKey() {
    configs.put("vms/vm-4", config("vms", "vm-4", List.of("nowhere"), List.of()));
    assertEquals(ShardRouting.shardOf("vms", "vm-4", SHARDS), routing.vmConfig("vms/vm-4"));
    assertEquals(ShardRouting.shardOf("vms", "gone", SHARDS), routing.vmConfig("vms/gone"));
  }

  @Test
  void aVirtualMachineGoesToTheShardOfItsOwnKey() {
    assertEquals(ShardRouting.shardOf("vms", "vm-1", SHARDS), routing.vm("vms/vm-1"));
  }

  @Test
  void onlyShardZeroKeepsTheAgentsRbac() {
    assertTrue(routing.owned(0).agentAccess());
    IntStream.range(1, SHARDS).forEach(s -> assertFalse(routing.owned(s).agentAccess()));
  }

  @Test
  void aSingleLeaderOwnsEverything() {
    ShardRouting single = ShardRouting.single();
    assertFalse(single.sharded());
    assertTrue(single.owned(0).pool("default/pool-a"));
    assertTrue(single.owned(0).vmConfig("vms/vm-1"));
    assertTrue(single.owned(0).vm("vms/vm-1"));
    assertTrue(single.owned(0).agentAccess());
  }

  @Test
  void aCountBelowOneIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> ShardRouting.shardOf("a", "b", 0));
    assertThrows(
        IllegalArgumentException.class, () -> new ShardRouting(-1, k -> null, n -> List.of()));
  }

  private IPPool pool(String namespace, String name, String network) {
    IPPool pool =
        new IPPool()
            .metadata(new V1ObjectMeta().namespace(namespace).name(name))
            .spec(new IPPoolSpec().networkName(network));
    pools.computeIfAbsent(network, n -> new ArrayList<>()).add(pool);
    return pool;
  }

  private static VirtualMachineNetworkConfig config(
      String namespace, String name, List<String> specNetworks, List<String> statusNetworks) {
    List<VirtualMachineNetworkConfig.NetworkConfig> nics = new ArrayList<>();
    int mac = 0;
    for (String network : specNetworks) {
      nics.add(ControllerHarness.nic(network, mac(mac++)));
    }
    List<NetworkConfigStatus> held = new ArrayList<>();
    for (String network : statusNetworks) {
      held.add(
          new NetworkConfigStatus()
              .networkName(network)
              .macAddress(mac(mac++))
              .allocatedIPAddress("10.0.0." + (10 + mac)));
    }
    return ControllerHarness.vmConfig(namespace, name, nics)
        .status(new VirtualMachineNetworkConfig.Status().networkConfigs(held));
  }

  private static String mac(int i) {
    return String.format("52:54:00:00:00:%02x", i);
  }
}
