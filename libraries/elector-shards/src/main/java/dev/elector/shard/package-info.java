/**
 * Shard groups: several leaders, each for a share of the work. A {@link
 * dev.elector.shard.ShardGroup} runs one ordinary election per shard, on any {@link
 * dev.elector.lock.LeaderLock}, and spreads the shards over the replicas that join it; every shard
 * keeps an elector's guarantees (terms, fencing tokens, the stop callback exactly once per term).
 */
@NullMarked
package dev.elector.shard;

import org.jspecify.annotations.NullMarked;
