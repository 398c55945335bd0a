package dev.elector.controller;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/**
 * Which shard owns each work key when the controller runs active-active ({@code --shards N}).
 *
 * <p>A pool belongs to shard {@link #shardOf(String, String, int) shardOf(namespace, name, N)}: the
 * 32-bit FNV-1a hash of the UTF-8 bytes of {@code namespace + "/" + name}, taken as an unsigned
 * number, modulo N. It depends on nothing but the key and N, so every replica computes the same
 * shard, and it is fixed here for good: a replica of another version must agree with it.
 *
 * <p>A VirtualMachineNetworkConfig goes to the lowest shard among the pools that serve its networks
 * (the networks of its spec and of its status, so the shard that releases an address is the one
 * that allocated it); a config on no served network goes to the shard of its own key, where it is
 * told that no pool serves it. A VirtualMachine goes to the shard of its own key. The agents' RBAC
 * of every namespace (ServiceAccount, Role, RoleBinding, one set per namespace, shared by its pools
 * whatever their shards) is kept by the leader of shard 0 only.
 *
 * <p>With 0 shards (a single leader) every key belongs to shard 0.
 */
final class ShardRouting {
  /** The shard that keeps the agents' RBAC of every namespace. */
  static final int AGENT_ACCESS_SHARD = 0;

  private static final int FNV_OFFSET = 0x811c9dc5;
  private static final int FNV_PRIME = 0x01000193;

  private final int shards;
  private final Function<String, VirtualMachineNetworkConfig> configs;
  private final Function<String, List<IPPool>> poolsOnNetwork;

  /**
   * @param shards the group's shard count; 0 for a single leader
   * @param configs a config by key, null when unknown
   * @param poolsOnNetwork the pools whose spec.networkName is the given network
   */
  ShardRouting(
      int shards,
      Function<String, VirtualMachineNetworkConfig> configs,
      Function<String, List<IPPool>> poolsOnNetwork) {
    if (shards < 0) {
      throw new IllegalArgumentException("shards " + shards + " must be 0 or more");
    }
    this.shards = shards;
    this.configs = configs;
    this.poolsOnNetwork = poolsOnNetwork;
  }

  /** Routing for a single leader: everything is shard 0. */
  static ShardRouting single() {
    return new ShardRouting(0, k -> null, n -> List.of());
  }

  /** Whether the controller runs over shards. */
  boolean sharded() {
    return shards > 0;
  }

  /**
   * The shard of the object {@code namespace/name}: FNV-1a (32 bits) of the UTF-8 bytes of {@code
   * namespace + "/" + name}, unsigned, modulo {@code shards}.
   */
  static int shardOf(String namespace, String name, int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards " + shards + " must be 1 or more");
    }
    int hash = FNV_OFFSET;
    for (byte b : (namespace + "/" + name).getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= FNV_PRIME;
    }
    return Integer.remainderUnsigned(hash, shards);
  }

  private int shardOfKey(String key) {
    if (shards == 0) {
      return 0;
    }
    int slash = key.indexOf('/');
    return shardOf(key.substring(0, slash), key.substring(slash + 1), shards);
  }

  /** The shard of the pool {@code namespace/name}. */
  int pool(String key) {
    return shardOfKey(key);
  }

  /**
   * The shard of the VirtualMachineNetworkConfig {@code namespace/name} (see the class comment).
   */
  int vmConfig(String key) {
    if (shards == 0) {
      return 0;
    }
    VirtualMachineNetworkConfig config = configs.apply(key);
    int lowest = -1;
    if (config != null) {
      for (String network : ClusterCache.networksOf(config)) {
        for (IPPool pool : poolsOnNetwork.apply(network)) {
          int shard = pool(KubeObjects.key(pool));
          lowest = lowest < 0 ? shard : Math.min(lowest, shard);
        }
      }
    }
    return lowest >= 0 ? lowest : shardOfKey(key);
  }

  /** The shard of the VirtualMachine {@code namespace/name}. */
  int vm(String key) {
    return shardOfKey(key);
  }

  /** What one shard's term reconciles: the keys that route to it. */
  Owned owned(int shard) {
    return new Owned(this, shard);
  }

  /** The keys of one shard; a term reconciles these only. */
  record Owned(ShardRouting routing, int shard) {
    boolean pool(String key) {
      return routing.pool(key) == shard;
    }

    boolean vmConfig(String key) {
      return routing.vmConfig(key) == shard;
    }

    boolean vm(String key) {
      return routing.vm(key) == shard;
    }

    /** Whether this shard keeps the agents' RBAC of every namespace (the single leader does). */
    boolean agentAccess() {
      return shard == AGENT_ACCESS_SHARD;
    }
  }
}
